"""chaos: the WPC Chaos Toolkit extension (see chaos/experiments/README.md)."""

from __future__ import annotations

from chaos.discovery import discover

__all__ = ["discover"]
