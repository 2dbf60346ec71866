"""The history file: one JSON object per line, one line per observed event.

A line is ``{"kind", "type", "resourceVersion", "received", "monotonic",
"object"}``. `type` is a watch event type (ADDED, MODIFIED, DELETED,
BOOKMARK) or RELIST for an object returned by a list call. The recorder ends
every listing with a BOOKMARK whose object is the list envelope (kind
``<Kind>List``, only ``metadata.resourceVersion``): the lines of one listing
are contiguous, so a reader knows which objects that listing no longer had
(deleted while no watch was open). Hand-made histories may omit it.

`received` is wall-clock unix time (comparable across runs and with a fault
window); `monotonic` orders events of one run even if the wall clock jumps.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from chaos.errors import HistoryError

EVENT_TYPES = frozenset({"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "RELIST"})
LIST_SUFFIX = "List"


@dataclass(frozen=True)
class HistoryRecord:
    """One line of a history file; `line` is its 1-based line number."""

    line: int
    kind: str
    type: str
    resource_version: str
    received: float
    monotonic: float
    object: Mapping[str, Any]

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The object's metadata (empty when absent)."""
        meta = self.object.get("metadata")
        return meta if isinstance(meta, Mapping) else {}

    @property
    def name(self) -> str:
        """The object's name."""
        return str(self.metadata.get("name", ""))

    @property
    def uid(self) -> str:
        """The object's uid, or its name when a hand-made object has none."""
        return str(self.metadata.get("uid") or self.name)

    @property
    def labels(self) -> Mapping[str, str]:
        """The object's labels."""
        return self.metadata.get("labels") or {}

    @property
    def annotations(self) -> Mapping[str, str]:
        """The object's annotations."""
        return self.metadata.get("annotations") or {}

    @property
    def finalizers(self) -> tuple[str, ...]:
        """The object's finalizers."""
        return tuple(self.metadata.get("finalizers") or ())

    @property
    def status(self) -> Mapping[str, Any]:
        """The object's status (empty when absent)."""
        status = self.object.get("status")
        return status if isinstance(status, Mapping) else {}

    @property
    def phase(self) -> str:
        """``status.phase``, or "" when not set yet."""
        return str(self.status.get("phase") or "")

    @property
    def is_list_end(self) -> bool:
        """Whether this line closes a listing (see the module docstring)."""
        kind = str(self.object.get("kind", ""))
        return self.type == "BOOKMARK" and kind == self.kind + LIST_SUFFIX

    def to_json(self) -> dict[str, Any]:
        """The line's JSON object, as the recorder writes it."""
        return {
            "kind": self.kind,
            "type": self.type,
            "resourceVersion": self.resource_version,
            "received": self.received,
            "monotonic": self.monotonic,
            "object": dict(self.object),
        }


@dataclass(frozen=True)
class History:
    """A loaded history: its records in file order."""

    path: str
    records: tuple[HistoryRecord, ...]

    @cached_property
    def start(self) -> float:
        """The earliest `received` time (0 for an empty history)."""
        return min((r.received for r in self.records), default=0.0)

    @cached_property
    def end(self) -> float:
        """The latest `received` time: "the end of the history"."""
        return max((r.received for r in self.records), default=0.0)

    def of_kind(self, kind: str) -> list[HistoryRecord]:
        """The records of one kind, in file order."""
        return [r for r in self.records if r.kind == kind]


def _number(data: Mapping[str, Any], key: str, path: Path, line: int) -> float:
    value = data.get(key)
    # bool is an int subclass; true/false is not a time.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HistoryError(path, line, f"{key!r} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise HistoryError(path, line, f"{key!r} must be finite, got {value!r}")
    return float(value)


def parse_line(text: str, *, path: Path, line: int) -> HistoryRecord:
    """Parse one history line; `HistoryError` names the file and line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HistoryError(path, line, f"not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise HistoryError(path, line, "a line must be a JSON object")
    kind, type_, version = (
        data.get("kind"),
        data.get("type"),
        data.get("resourceVersion"),
    )
    if not isinstance(kind, str) or not kind:
        raise HistoryError(
            path, line, f"'kind' must be a non-empty string, got {kind!r}"
        )
    if type_ not in EVENT_TYPES:
        allowed = ", ".join(sorted(EVENT_TYPES))
        raise HistoryError(
            path, line, f"'type' must be one of {allowed}, got {type_!r}"
        )
    if not isinstance(version, str):
        raise HistoryError(
            path, line, f"'resourceVersion' must be a string, got {version!r}"
        )
    obj = data.get("object")
    if not isinstance(obj, dict):
        raise HistoryError(path, line, "'object' must be a JSON object")
    return HistoryRecord(
        line=line,
        kind=kind,
        type=str(type_),
        resource_version=version,
        received=_number(data, "received", path, line),
        monotonic=_number(data, "monotonic", path, line),
        object=obj,
    )


def load_history(path: Path | str) -> History:
    """Load a JSONL history; blank lines are skipped, anything else must parse."""
    file = Path(path)
    return _parse(_read(file), file)


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HistoryError(file, None, f"cannot read the history: {exc}") from exc


def _parse(text: str, file: Path) -> History:
    records = tuple(
        parse_line(raw, path=file, line=number)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip()
    )
    return History(path=str(file), records=records)


def load_written(path: Path | str) -> History:
    """Load what a recorder still writing has written so far.

    The recorder flushes whole batches, but a long line may reach the disk in
    pieces: a last line without its newline is still being written and is
    left out, not reported as malformed.
    """
    file = Path(path)
    text = _read(file)
    return _parse(text[: text.rfind("\n") + 1], file)


def dump_line(record: Mapping[str, Any]) -> str:
    """One history line (compact JSON and a newline) for a record's JSON."""
    return json.dumps(record, separators=(",", ":"), sort_keys=False) + "\n"
