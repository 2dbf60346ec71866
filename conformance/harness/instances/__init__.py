"""The controller instances under test: the two layouts, the `Controller` protocol, host-wide locks, stop speed."""

from __future__ import annotations
