"""Summary statistics of the measured durations.

Percentiles interpolate linearly between the closest ranks (Hyndman and Fan's
type 7: numpy's default, `statistics.quantiles(method="inclusive")`), so the
median of an even count is the mean of the two middle values and p90 of ten
samples lies between the 9th and the 10th.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import dataclass
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (0..100) of `values`, linearly interpolated."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True)
class Summary:
    """Count, median, p90 and range of one series, in seconds."""

    n: int
    median: float | None
    p90: float | None
    minimum: float | None
    maximum: float | None

    def as_json(self) -> dict[str, Any]:
        """The summary as a JSON object (None for an empty series)."""
        return asdict(self)


def summarize(values: Sequence[float | None]) -> Summary:
    """Summarize the values that were measured (None entries are skipped)."""
    present = [v for v in values if v is not None]
    if not present:
        return Summary(n=0, median=None, p90=None, minimum=None, maximum=None)
    return Summary(
        n=len(present),
        median=percentile(present, 50),
        p90=percentile(present, 90),
        minimum=min(present),
        maximum=max(present),
    )


def per_minute(*, count: int, seconds: float) -> float | None:
    """`count` events in `seconds`, as a rate per minute (None if no time passed)."""
    if seconds <= 0:
        return None
    return count * 60.0 / seconds


RATIO_FLOOR = 0.05
"""Below this many seconds a median is within the method's resolution (10 ms
markers, API round trips), so a ratio of it would be noise: no ratio is given."""


def ratio(top: float | None, bottom: float | None) -> float | None:
    """`top / bottom`, or None when either is unknown or below `RATIO_FLOOR`."""
    if top is None or bottom is None or min(top, bottom) < RATIO_FLOOR:
        return None
    return top / bottom
