"""What an invariant reports: the broken rule, the object, and the evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chaos.history.records import HistoryRecord


@dataclass(frozen=True)
class ObjectRef:
    """The object a violation is about."""

    kind: str
    name: str
    uid: str

    @classmethod
    def of(cls, record: HistoryRecord) -> ObjectRef:
        """The object a history record carries."""
        return cls(record.kind, record.name, record.uid)

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"

    def to_dict(self) -> dict[str, str]:
        """The report's JSON form."""
        return {"kind": self.kind, "name": self.name, "uid": self.uid}


@dataclass(frozen=True)
class Evidence:
    """History lines (1-based) and resourceVersions a reader can look up."""

    lines: tuple[int, ...]
    resource_versions: tuple[str, ...]

    @classmethod
    def of(cls, *records: HistoryRecord) -> Evidence:
        """The evidence of some records, in line order, without duplicates."""
        ordered = sorted({r.line: r for r in records}.values(), key=lambda r: r.line)
        return cls(
            tuple(r.line for r in ordered),
            tuple(r.resource_version for r in ordered),
        )

    def to_dict(self) -> dict[str, list[Any]]:
        """The report's JSON form."""
        return {
            "lines": list(self.lines),
            "resourceVersions": list(self.resource_versions),
        }


@dataclass(frozen=True)
class Violation:
    """One broken invariant, with enough evidence to find it in the history."""

    invariant: str
    object: ObjectRef
    message: str
    evidence: Evidence

    def to_dict(self) -> dict[str, Any]:
        """The report's JSON form (also the CLI's YAML)."""
        return {
            "invariant": self.invariant,
            "object": self.object.to_dict(),
            "message": self.message,
            "evidence": self.evidence.to_dict(),
        }
