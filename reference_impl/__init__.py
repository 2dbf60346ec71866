"""reference_impl."""

from __future__ import annotations
