"""A completed workflow reduced to what two implementations must agree on.

Kept: the workflow's phase and message, and per node its display name, type,
phase, message, children and outputs (parameters by name, artifact names, the
script result, the exit code). Generated names are replaced so that two
runs of one manifest compare equal: the workflow's name becomes `<wf>` in node
names, messages and output values, node IDs (which implementations may derive differently)
become `<node NAME>`, and a pod name's numeric hash becomes `<hash>`. Nodes
are keyed by their normalised name, and children are listed by it, sorted:
the tree's shape, not the order a status happened to list them in.
"""

from __future__ import annotations

import re
from typing import Any

Json = dict[str, Any]

WORKFLOW = "<wf>"
HASH = re.compile(r"(<wf>[-a-z0-9.]*?)-\d{5,}\b")
"""A pod name after the workflow's name was replaced: `<wf>-main-1234567890`."""


def _rename(text: str, name: str) -> str:
    """`text` with the workflow's name replaced by `<wf>` (only as a whole name)."""
    if not name:
        return text
    return re.sub(rf"{re.escape(name)}(?![a-z0-9])", WORKFLOW, text)


def _node_name(node: Json, workflow: str) -> str:
    return _rename(str(node.get("name", "")), workflow)


def normalise_text(text: str, *, workflow: str, ids: dict[str, str]) -> str:
    """A message with node IDs, the workflow's name and pod hashes replaced.

    A node ID is replaced only as a whole token: the root node's ID is the
    workflow's name, which also starts every pod name.
    """
    for node_id in sorted(ids, key=len, reverse=True):
        if node_id != workflow:
            text = re.sub(
                rf"(?<![-a-z0-9.]){re.escape(node_id)}(?![-a-z0-9.])",
                f"<node {ids[node_id]}>",
                text,
            )
    return HASH.sub(r"\1-<hash>", _rename(text, workflow))


def _value(value: Any, workflow: str) -> Any:
    return _rename(value, workflow) if isinstance(value, str) else value


def _outputs(outputs: Json, workflow: str) -> Json:
    result: Json = {}
    parameters = outputs.get("parameters") or []
    if parameters:
        result["parameters"] = {
            str(p.get("name")): _value(p.get("value"), workflow)
            for p in parameters
            if isinstance(p, dict)
        }
    artifacts = outputs.get("artifacts") or []
    if artifacts:
        result["artifacts"] = sorted(
            str(a.get("name")) for a in artifacts if isinstance(a, dict)
        )
    for key in ("result", "exitCode"):
        if outputs.get(key) is not None:
            result[key] = _rename(str(outputs[key]), workflow)
    return result


def normalise(workflow: Json) -> Json:
    """The comparable outcome of `workflow` (completed or not)."""
    name = str((workflow.get("metadata") or {}).get("name", ""))
    status = workflow.get("status") or {}
    raw = status.get("nodes") or {}
    ids = {node_id: _node_name(node, name) for node_id, node in raw.items()}
    nodes: Json = {}
    for node_id, node in raw.items():
        entry: Json = {
            "displayName": _rename(str(node.get("displayName", "")), name),
            "type": node.get("type", ""),
            "phase": node.get("phase", ""),
            "message": normalise_text(
                str(node.get("message", "")), workflow=name, ids=ids
            ),
            "children": sorted(
                ids.get(c, f"<unknown {c}>") for c in node.get("children") or []
            ),
        }
        outputs = _outputs(node.get("outputs") or {}, name)
        if outputs:
            entry["outputs"] = outputs
        nodes[ids[node_id]] = entry
    return {
        "phase": status.get("phase", ""),
        "message": normalise_text(
            str(status.get("message", "")), workflow=name, ids=ids
        ),
        "nodes": dict(sorted(nodes.items())),
    }
