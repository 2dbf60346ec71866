"""conformance: the spec, the pytest plugin, the profiles and the black-box suite."""

from __future__ import annotations

__version__ = "0.1.0"
"""WPC's version: the one place it is written (pyproject.toml reads it, reports show it)."""
