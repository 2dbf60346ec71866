"""reference_impl/executor."""

from __future__ import annotations
