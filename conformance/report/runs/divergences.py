"""Differential testing between layouts, with expected differences as data.

`load()` reads `divergences.yaml` (schema-checked, so a typo names its key);
`compare()` takes one scenario's observations per layout and splits every
difference into *declared* (matches an entry) and *undeclared* (a finding the
plugin reports as a failed "layout divergence" check).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance.errors import DataError

DEFAULT_PATH = Path(__file__).parents[2] / "divergences.yaml"
SCHEMA_PATH = Path(__file__).parents[2] / "divergences.schema.json"
ABSENT = "<absent>"
"""Stands for an observation one layout recorded and another did not."""


@dataclass(frozen=True)
class Divergence:
    """One expected difference between layouts."""

    id: str
    scenarios: tuple[str, ...]
    observations: tuple[str, ...]
    values: Mapping[str, Any] | None
    reason: str

    def matches(
        self, *, short_name: str, key: str, by_layout: Mapping[str, Any]
    ) -> bool:
        """True when this entry explains `key` differing as `by_layout` shows."""
        if not any(fnmatch.fnmatchcase(short_name, p) for p in self.scenarios):
            return False
        if not any(fnmatch.fnmatchcase(key, p) for p in self.observations):
            return False
        if self.values is None:
            return True
        return all(
            layout in self.values and self.values[layout] == value
            for layout, value in by_layout.items()
        )


@dataclass(frozen=True)
class Difference:
    """One observation key whose values differ across layouts."""

    key: str
    by_layout: Mapping[str, Any]
    divergence: str | None
    """The id of the declared divergence explaining it, or None."""

    def to_json(self) -> dict[str, Any]:
        """Report form."""
        return {
            "key": self.key,
            "values": dict(self.by_layout),
            "divergence": self.divergence,
        }


def load(path: Path = DEFAULT_PATH) -> tuple[Divergence, ...]:
    """Read and validate a divergences file."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(f"{path}: cannot read layout divergences: {exc}") from exc
    schema = json.loads(SCHEMA_PATH.read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if errors:
        lines = [
            f"{'.'.join(str(p) for p in e.absolute_path) or '<top level>'}: {e.message}"
            for e in errors
        ]
        raise DataError(f"{path}: invalid layout divergences:\n  " + "\n  ".join(lines))
    return tuple(
        Divergence(
            id=entry["id"],
            scenarios=tuple(entry["scenarios"]),
            observations=tuple(entry["observations"]),
            values=entry.get("values"),
            reason=entry["reason"],
        )
        for entry in data["divergences"]
    )


def compare(
    *,
    short_name: str,
    observations: Mapping[str, Mapping[str, Any]],
    divergences: tuple[Divergence, ...],
) -> list[Difference]:
    """Every key whose value differs between the layouts in `observations`."""
    keys = sorted({key for obs in observations.values() for key in obs})
    found = []
    for key in keys:
        by_layout = {
            layout: obs.get(key, ABSENT) for layout, obs in observations.items()
        }
        rendered = {
            json.dumps(v, sort_keys=True, default=str) for v in by_layout.values()
        }
        if len(rendered) < 2:
            continue
        match = next(
            (
                d.id
                for d in divergences
                if d.matches(short_name=short_name, key=key, by_layout=by_layout)
            ),
            None,
        )
        found.append(Difference(key=key, by_layout=by_layout, divergence=match))
    return found
