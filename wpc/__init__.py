"""`wpc`: one console script over the suite's front ends (see `wpc.cli`)."""

from __future__ import annotations

__all__: list[str] = []
