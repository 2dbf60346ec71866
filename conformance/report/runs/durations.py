"""The durations file: how long each item took, for scheduling and sharding.

`conformance/durations.json` ships with the suite, made with `of_tests` from
the committed full reference run named in its `source` (a unit test keeps the
two equal), and a run with `--update-durations` folds its own items' times
into it. Items are keyed by
their stable name (`conformance.report.items.itemkeys`), not by node ID. Items that
were skipped are left out: a skipped item took no time, but the same item run
by an implementation that claims its feature does.

Format (JSON, sorted keys, so a refresh diffs line by line):
    {"source": "<where the times come from>", "seconds": {"<item key>": 12.3}}
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.errors import DataError
from conformance.report.items.itemkeys import key_of_test

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "durations.json"


def of_tests(tests: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Seconds per item key of a report's `tests` that ran (scenarios, not skipped)."""
    return {
        key_of_test(test): round(float(test["durationSeconds"]), 3)
        for test in tests
        if test.get("kind", "scenario") == "scenario" and test["outcome"] != "skipped"
    }


def load(path: Path = DEFAULT_PATH) -> dict[str, float]:
    """Seconds per item key; DataError naming the file when it is not a durations file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"durations file {path}: cannot read it: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"durations file {path}: not JSON: {exc}") from exc
    seconds = data.get("seconds") if isinstance(data, dict) else None
    if not isinstance(seconds, dict):
        raise DataError(
            f'durations file {path}: expected {{"source": ..., "seconds": {{item: seconds}}}}'
        )
    bad = sorted(
        str(key)
        for key, value in seconds.items()
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0
    )
    if bad:
        raise DataError(
            f"durations file {path}: not a number of seconds >= 0 for {', '.join(bad)}"
        )
    return {str(key): float(value) for key, value in seconds.items()}


def write(path: Path, seconds: Mapping[str, float], *, source: str) -> None:
    """Write the durations file (sorted keys, one item per line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"source": source, "seconds": dict(sorted(seconds.items()))}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def refresh(path: Path, measured: Mapping[str, float], *, source: str) -> None:
    """Fold this run's measured items into the file; items it did not run keep theirs."""
    known = load(path) if path.exists() else {}
    write(path, {**known, **measured}, source=source)
