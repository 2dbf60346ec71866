"""Hand-made histories for the chaos tests: objects and a line-by-line builder."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from chaos.history.records import History
from chaos.history.records import parse_line

T0 = 1_700_000_000.0
WF_LABEL = "workflows.argoproj.io/workflow"
NODE_ID = "workflows.argoproj.io/node-id"
FINALIZER = "workflows.argoproj.io/status"


def workflow(
    name: str = "wf",
    *,
    phase: str = "",
    nodes: dict[str, Any] | None = None,
    templates: list[dict[str, Any]] | None = None,
    stored: dict[str, Any] | None = None,
    uid: str | None = None,
) -> dict[str, Any]:
    status: dict[str, Any] = {"nodes": nodes or {}}
    if phase:
        status["phase"] = phase
    if stored is not None:
        status["storedTemplates"] = stored
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": name, "uid": uid or f"uid-{name}"},
        "spec": {"templates": templates or []},
        "status": status,
    }


def node(
    phase: str,
    *,
    name: str = "step",
    type_: str = "Pod",
    template: str = "main",
    outputs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "displayName": name,
        "type": type_,
        "phase": phase,
        "templateName": template,
    }
    if outputs is not None:
        found["outputs"] = outputs
    return found


def pod(
    name: str,
    *,
    wf: str = "wf",
    node_id: str = "wf-1",
    phase: str = "Running",
    finalizers: tuple[str, ...] = (),
    owner_uid: str | None = None,
    deleting: bool = False,
    containers: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "uid": f"uid-{name}",
        "labels": {WF_LABEL: wf},
        "annotations": {NODE_ID: node_id},
        "finalizers": list(finalizers),
    }
    if owner_uid is not None:
        meta["ownerReferences"] = [{"kind": "Workflow", "name": wf, "uid": owner_uid}]
    if deleting:
        meta["deletionTimestamp"] = "2023-11-14T22:13:20Z"
    status: dict[str, Any] = {"phase": phase}
    if containers is not None:
        status["containerStatuses"] = containers
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "status": status}


def taskresult(name: str, *, wf: str = "wf") -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "WorkflowTaskResult",
        "metadata": {"name": name, "uid": f"uid-{name}", "labels": {WF_LABEL: wf}},
    }


class HistoryBuilder:
    """Appends history lines at chosen times; resourceVersions count up."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.now = T0
        self._version = 100

    def at(self, seconds: float) -> HistoryBuilder:
        self.now = T0 + seconds
        return self

    def add(self, type_: str, obj: dict[str, Any], *, kind: str | None = None) -> int:
        """Append one line; returns its 1-based line number."""
        self._version += 1
        body = copy.deepcopy(obj)
        body.setdefault("metadata", {})["resourceVersion"] = str(self._version)
        line = {
            "kind": kind or body["kind"],
            "type": type_,
            "resourceVersion": str(self._version),
            "received": self.now,
            "monotonic": self.now - T0,
            "object": body,
        }
        self.lines.append(json.dumps(line))
        return len(self.lines)

    def list_end(self, kind: str) -> int:
        envelope = {"kind": f"{kind}List", "metadata": {}}
        return self.add("BOOKMARK", envelope, kind=kind)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def write(self, path: Path) -> Path:
        path.write_text(self.text(), encoding="utf-8")
        return path

    def build(self) -> History:
        records = tuple(
            parse_line(raw, path=Path("memory.jsonl"), line=number)
            for number, raw in enumerate(self.lines, start=1)
        )
        return History(path="memory.jsonl", records=records)
