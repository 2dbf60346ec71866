"""Kubernetes timestamps (RFC 3339, `2026-11-22T03:23:12Z`) as epoch seconds."""

from __future__ import annotations

from datetime import datetime


def epoch(stamp: str) -> float:
    """Seconds since the epoch of an API timestamp (second or sub-second resolution)."""
    text = stamp.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {stamp!r}")
    return moment.timestamp()
