"""Figures of `bench-start`: medians and p90s of start runs, and a signal sweep's ends."""

from __future__ import annotations

import collections
import math
from collections.abc import Mapping
from collections.abc import Sequence

from reference_impl.images.benchmarking import FATAL
from reference_impl.images.benchmarking import LOST
from reference_impl.images.benchmarking import StartRun


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (`q` in 0..100) of a non-empty sample."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _cell(values: Sequence[float | None]) -> str:
    seen = [v for v in values if v is not None]
    if not seen:
        return "never seen"
    text = f"median {percentile(seen, 50) * 1000:7.1f} ms  p90 {percentile(seen, 90) * 1000:7.1f} ms"
    missing = len(values) - len(seen)
    return text + (f"  ({missing} runs unseen)" if missing else "")


def render_starts(runs: Sequence[StartRun]) -> list[str]:
    """One line per milestone."""
    return [
        f"  exec -> SIGTERM owned (blocked or caught): {_cell([r.owned for r in runs])}",
        f"  exec -> SIGTERM handler installed:         {_cell([r.handled for r in runs])}",
        f"  exec -> user command running:              {_cell([r.main for r in runs])}",
        f"  CPU per start (user + system):             {_cell([r.cpu for r in runs])}",
    ]


def render_sweep(outcomes: Mapping[float, str]) -> list[str]:
    """Counts per end, and the windows: the latest delays that ended fatally, or lost it."""
    counts = collections.Counter(outcomes.values())
    fatal = [d for d, end in outcomes.items() if end.startswith(FATAL)]
    lost = [d for d, end in outcomes.items() if end == LOST]
    ends = ", ".join(f"{end}: {n}" for end, n in sorted(counts.items()))
    return [
        f"  SIGTERM at {len(outcomes)} delays: {ends}",
        f"  fatal-signal window (latest fatal delay): {_latest(fatal)}",
        f"  lost-signal window (latest delay it was dropped): {_latest(lost)}",
    ]


def _latest(delays: Sequence[float]) -> str:
    return f"{max(delays) * 1000:.0f} ms" if delays else "none"
