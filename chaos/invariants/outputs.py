"""Invariant: a Succeeded pod node carries the outputs its template declares."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.replay import tracks
from chaos.invariants.settings import InvariantSettings
from chaos.invariants.violations import Evidence
from chaos.invariants.violations import ObjectRef
from chaos.invariants.violations import Violation

SUCCEEDED_NODES_HAVE_OUTPUTS = "succeeded-nodes-have-outputs"


def _template(
    node: Mapping[str, Any], version: HistoryRecord
) -> Mapping[str, Any] | None:
    """The template a node ran, from the spec or the stored templates."""
    stored: Mapping[str, Any] = version.status.get("storedTemplates") or {}
    ref = node.get("templateRef")
    if isinstance(ref, Mapping):
        # Stored under "<scope>/<WorkflowTemplate name>/<template name>".
        suffix = f"/{ref.get('name')}/{ref.get('template')}"
        return next((t for k, t in stored.items() if k.endswith(suffix)), None)
    name = node.get("templateName")
    if not name:
        return None
    spec = version.object.get("spec") or {}
    from_template = version.status.get("storedWorkflowTemplateSpec") or {}
    candidates: Iterable[Any] = [
        *(spec.get("templates") or []),
        *(from_template.get("templates") or []),
        *stored.values(),
    ]
    return next(
        (t for t in candidates if isinstance(t, Mapping) and t.get("name") == name),
        None,
    )


def _names(outputs: Mapping[str, Any], *, required_only: bool) -> set[str]:
    names = {str(p.get("name")) for p in outputs.get("parameters") or []}
    for artifact in outputs.get("artifacts") or []:
        # An optional artifact may be absent from a Succeeded node.
        if not (required_only and artifact.get("optional")):
            names.add(str(artifact.get("name")))
    return names


def succeeded_nodes_have_outputs(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """Every Succeeded Pod node has the declared output parameters/artifacts.

    Checked on every workflow version, so a node marked Succeeded before its
    outputs were recorded (a window in which a dependent step could read
    nothing) is caught even if a later version fills them in. Reported once
    per node. Nodes whose template cannot be found are not judged.
    """
    found: list[Violation] = []
    for track in tracks(history, "Workflow"):
        reported: set[str] = set()
        for version in track.versions:
            for node_id, node in (version.status.get("nodes") or {}).items():
                if node_id in reported or node.get("type") != "Pod":
                    continue
                if node.get("phase") != "Succeeded":
                    continue
                template = _template(node, version)
                if template is None:
                    continue
                declared = _names(template.get("outputs") or {}, required_only=True)
                present = _names(node.get("outputs") or {}, required_only=False)
                missing = sorted(declared - present)
                if not missing:
                    continue
                reported.add(node_id)
                label = node.get("displayName") or node_id
                found.append(
                    Violation(
                        SUCCEEDED_NODES_HAVE_OUTPUTS,
                        ObjectRef.of(version),
                        f"node {label} ({node_id}) is Succeeded without outputs "
                        f"{', '.join(missing)} declared by template "
                        f"{template.get('name')}",
                        Evidence.of(version),
                    )
                )
    return found
