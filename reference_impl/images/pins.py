"""Pinned packaging tools; a change here rebuilds every frozen binary."""

from __future__ import annotations

PYINSTALLER = "pyinstaller==6.22.3"
STATICX = "staticx==0.14.2"
TOOLS = (PYINSTALLER, STATICX)
