"""Before the first pod: workflow validation, and which fields the controller implements or rejects."""

from __future__ import annotations
