"""reference_impl/controller."""

from __future__ import annotations
