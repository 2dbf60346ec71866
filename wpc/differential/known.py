"""Known differences: corpus file -> the reason its differences are expected.

A `--known` file is YAML, a mapping from a corpus file (its path relative to
the corpus directory, as the report names it) to a non-empty reason, ideally
pointing at `docs/known-deviations.md` or upstream source. A listed file's
differences are still reported, as known, but do not fail the run; a listed
file that shows no difference is reported too (the entry may be stale).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from conformance.errors import DataError

SHIPPED = Path(__file__).with_name("known.yaml")


def load(path: Path | None) -> dict[str, str]:
    """The known differences in `path` (None: none); DataError naming a bad entry."""
    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(f"--known {path}: cannot read: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DataError(
            f"--known {path}: expected a mapping of corpus file to reason, "
            f"got {type(data).__name__}"
        )
    known: dict[str, str] = {}
    for file, reason in data.items():
        if (
            not isinstance(file, str)
            or not isinstance(reason, str)
            or not reason.strip()
        ):
            raise DataError(
                f"--known {path}: entry {file!r}: expected a corpus file name "
                "mapped to a non-empty reason"
            )
        known[file] = reason.strip()
    return known
