"""Replay a history into one track per object: its versions and its end.

An object is gone at its DELETED event or, when the recorder re-listed, at
the list-end BOOKMARK of the first listing that no longer had it (it was
deleted while no watch was open, so no DELETED event was seen).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

from chaos.argo import WORKFLOW_LABEL
from chaos.argo import WORKFLOW_TERMINAL
from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.violations import ObjectRef


@dataclass
class Track:
    """Every observed version of one object, and how it ended (if it did)."""

    versions: list[HistoryRecord] = field(default_factory=list)
    gone: HistoryRecord | None = None

    @property
    def first(self) -> HistoryRecord:
        """The first record carrying the object."""
        return self.versions[0]

    @property
    def last(self) -> HistoryRecord:
        """The last record carrying the object (its last known state)."""
        return self.versions[-1]

    @property
    def ref(self) -> ObjectRef:
        """The object, for a violation."""
        return ObjectRef.of(self.last)

    def terminal(self) -> HistoryRecord | None:
        """The first version in a completed workflow phase."""
        return next((v for v in self.versions if v.phase in WORKFLOW_TERMINAL), None)


def tracks(history: History, kind: str) -> list[Track]:
    """The tracks of one kind's objects, in order of first appearance."""
    by_uid: dict[str, Track] = {}
    listed: set[str] = set()
    for record in history.of_kind(kind):
        if record.type == "BOOKMARK":
            if record.is_list_end:
                for uid, track in by_uid.items():
                    if track.gone is None and uid not in listed:
                        track.gone = record
            listed = set()
            continue
        if record.type == "RELIST":
            listed.add(record.uid)
        else:
            listed = set()  # a listing's lines are contiguous; this one ended
        track = by_uid.setdefault(record.uid, Track())
        track.versions.append(record)
        track.gone = record if record.type == "DELETED" else None
    return list(by_uid.values())


def owning_workflow(owned: Track, workflows: list[Track]) -> Track | None:
    """The workflow of a pod or task result: by owner uid, else by label.

    The label names the workflow; the owner reference tells two workflows of
    the same name apart (deleted and created again). By name alone, the
    latest workflow of that name seen before the object wins.
    """
    meta = owned.last.metadata
    owners = {
        str(o.get("uid"))
        for o in meta.get("ownerReferences") or []
        if o.get("kind") == "Workflow"
    }
    for workflow in workflows:
        if workflow.first.uid in owners:
            return workflow
    name = owned.last.labels.get(WORKFLOW_LABEL)
    if name is None:
        return None
    candidates = [
        w
        for w in workflows
        if w.first.name == name and w.first.line <= owned.first.line
    ]
    if not candidates:
        candidates = [w for w in workflows if w.first.name == name]
    return candidates[-1] if candidates else None
