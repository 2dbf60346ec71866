"""The negative controls longest first, and a shard of them (`--wpc-shard I/N`).

`make negative-controls` runs the faults a few at a time (`batching.PARALLEL`) in
the order of the session's items; a long fault started last holds the whole
session. Here the items are put longest first by the faults' recorded seconds
(`tests/negative/durations.json`, keyed by fault, in the durations file format
of `conformance.report.runs.durations`), and `--wpc-shard I/N` keeps a deterministic,
duration-balanced part of them. The order and the packing are the suite's own
(`conformance.plugin.state.scheduling`): one rule for conformance runs and negative
controls. A fault's items stay in one shard. Items that are not a fault's
(no `control` parameter, or not marked `negative`) are left as they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.plugin.state import scheduling
from conformance.report.runs import durations

DURATIONS = Path(__file__).with_name("durations.json")
"""Seconds per fault; refreshed by a session run with `--wpc-update-durations`."""


def fault_of(item: pytest.Item) -> str | None:
    """The fault a negative-control item runs (its `control` parameter), else None."""
    if item.get_closest_marker("negative") is None:
        return None
    callspec = getattr(item, "callspec", None)
    control = callspec.params.get("control") if callspec is not None else None
    fault = getattr(control, "fault", None)
    return fault if isinstance(fault, str) else None


def arrange(
    items: Sequence[pytest.Item],
    *,
    known: Mapping[str, float],
    shard: scheduling.Shard | None,
) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(the items to run, in order; the items of other shards).

    Other items first, as they were; then the faults' items, longest first.
    """
    faulty = {item.nodeid: fault for item in items if (fault := fault_of(item))}
    others = [item for item in items if item.nodeid not in faulty]
    expected = scheduling.expected(faulty.values(), known)
    units = {
        nodeid: scheduling.Unit(
            key=nodeid, seconds=expected[fault], blocks=(f"fault:{fault}",)
        )
        for nodeid, fault in faulty.items()
    }
    by_id = {item.nodeid: item for item in items if item.nodeid in faulty}
    kept, dropped = scheduling.split(units, shard)
    return others + [by_id[unit.key] for unit in kept], [by_id[k] for k in dropped]


def shard_of(config: pytest.Config) -> scheduling.Shard | None:
    """`--wpc-shard`, parsed; a UsageError naming the flag when malformed."""
    text = config.getoption("wpc_shard", None)
    if text is None:
        return None
    try:
        return scheduling.parse_shard(str(text), flag="--wpc-shard")
    except DataError as exc:
        raise pytest.UsageError(str(exc)) from exc


def load_known(path: Path = DURATIONS) -> dict[str, float]:
    """The faults' recorded seconds; none recorded is no error."""
    return durations.load(path) if path.exists() else {}


def refresh(document: Mapping[str, object], path: Path = DURATIONS) -> None:
    """Fold a session summary's fault durations into the file (faults that ran)."""
    entries = document.get("faults")
    measured = {
        str(entry["fault"]): float(entry["durationSeconds"])
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and float(entry.get("durationSeconds", 0)) > 0
    }
    if measured:
        durations.refresh(path, measured, source="make negative-controls")
