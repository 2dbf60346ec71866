"""Go duration strings (`1m0s`, `3s`, `500ms`), as Argo writes and reads them.

Argo puts Go's `time.Duration.String()` on pods (`ARGO_PROGRESS_*_TICK_DURATION`, the
`pod-gc-strategy` annotation) and reads Go durations from its environment and ConfigMap,
so the reference controller must produce and accept the same spelling.
"""

from __future__ import annotations

import re

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_TERM = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse(text: str) -> float:
    """Return the duration in seconds; a bare number is taken as seconds (like Argo's fields)."""
    value = text.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    sign = -1.0 if value.startswith("-") else 1.0
    rest = value.lstrip("+-")
    total, position = 0.0, 0
    for match in _TERM.finditer(rest):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if not rest or position != len(rest):
        raise ValueError(f"invalid duration {text!r}")
    return sign * total


def format_go(seconds: float) -> str:
    """Return `seconds` spelled like Go's `time.Duration.String()` (`0s`, `3s`, `1m0s`, `1h2m3s`)."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    remaining = abs(seconds)
    if remaining < 1:
        for unit, scale in (("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
            if remaining >= scale:
                return f"{sign}{_trim(remaining / scale)}{unit}"
        return f"{sign}0s"
    hours, remaining = divmod(remaining, 3600)
    minutes, secs = divmod(remaining, 60)
    text = f"{_trim(secs)}s"
    if hours or minutes:
        text = f"{int(minutes)}m{text}"
    if hours:
        text = f"{int(hours)}h{text}"
    return sign + text


def _trim(value: float) -> str:
    text = f"{value:.9f}".rstrip("0").rstrip(".")
    return text or "0"
