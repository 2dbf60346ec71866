"""What steps and tasks can see of each other: outputs in scope, outbound nodes, template outputs.

Mirrors Argo's `buildLocalScope`, `addNodeOutputsToLocalScope`, `getOutboundNodes` and
`getTemplateOutputsFromScope` for the variables listed in `substitution`.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from reference_impl.controller import errors

Json = dict[str, Any]


@dataclasses.dataclass
class Scope:
    """Variables from finished steps or tasks: strings for substitution, artifacts for `from`."""

    params: dict[str, str] = dataclasses.field(default_factory=dict)
    artifacts: dict[str, Json] = dataclasses.field(default_factory=dict)


def add_node(
    scope: Scope, nodes: dict[str, Json], *, kind: str, name: str, node: Json
) -> None:
    """Put a finished step's or task's values into scope as `<kind>.<name>.*`."""
    if node.get("type") == "Retry" and node.get("children"):
        node = nodes.get(node["children"][-1], node)
    prefix = f"{kind}.{name}"
    for key, field in (
        ("id", "id"),
        ("startedAt", "startedAt"),
        ("finishedAt", "finishedAt"),
        ("ip", "podIP"),
        ("status", "phase"),
        ("hostNodeName", "hostNodeName"),
    ):
        if node.get(field):
            scope.params[f"{prefix}.{key}"] = str(node[field])
    outputs = node.get("outputs") or {}
    if outputs.get("result") is not None:
        scope.params[f"{prefix}.outputs.result"] = str(outputs["result"])
    if outputs.get("exitCode") is not None:
        scope.params[f"{prefix}.exitCode"] = str(outputs["exitCode"])
    for param in outputs.get("parameters") or []:
        if param.get("value") is not None:
            scope.params[f"{prefix}.outputs.parameters.{param['name']}"] = str(
                param["value"]
            )
    for artifact in outputs.get("artifacts") or []:
        scope.artifacts[f"{prefix}.outputs.artifacts.{artifact['name']}"] = artifact


def outbound_nodes(nodes: dict[str, Json], node_id: str) -> list[str]:
    """Return the IDs of the nodes a later step or task hangs off (`getOutboundNodes`)."""
    node = nodes.get(node_id)
    if node is None:
        return []
    node_type = node.get("type")
    if node_type in ("Pod", "Skipped", "Suspend", "HTTP", "Plugin"):
        return [node_id]
    if node_type == "TaskGroup":
        children = node.get("children") or []
        if not children:
            return [node_id]
        return [out for child in children for out in outbound_nodes(nodes, child)]
    if node_type == "Retry" and node.get("children"):
        return [node["children"][-1]]
    return [
        out
        for child in node.get("outboundNodes") or []
        for out in outbound_nodes(nodes, child)
    ]


def template_outputs(template: Json, scope: Scope) -> Json | None:
    """Return a steps or DAG template's outputs resolved from scope, or None when it has none.

    Raises WorkflowError when an output refers to something not in scope.
    """
    declared = template.get("outputs") or {}
    if not declared.get("parameters") and not declared.get("artifacts"):
        return None
    outputs: Json = {}
    if declared.get("parameters"):
        outputs["parameters"] = []
        for param in declared["parameters"]:
            value_from = param.get("valueFrom") or {}
            if not value_from:
                raise errors.WorkflowError(
                    "output parameters must have a valueFrom specified"
                )
            key = _key(str(value_from.get("parameter") or ""))
            value = scope.params.get(key)
            if value is None:
                if value_from.get("default") is None:
                    raise errors.WorkflowError(f"Unable to resolve: {{{{{key}}}}}")
                value = str(value_from["default"])
            resolved = {k: v for k, v in param.items() if k != "valueFrom"}
            resolved["value"] = value
            outputs["parameters"].append(resolved)
    if declared.get("artifacts"):
        outputs["artifacts"] = []
        for artifact in declared["artifacts"]:
            key = _key(str(artifact.get("from") or ""))
            found = scope.artifacts.get(key)
            if found is None:
                if artifact.get("optional"):
                    continue
                raise errors.WorkflowError(
                    f"unable to resolve outputs from scope: Unable to resolve: {{{{{key}}}}}"
                )
            resolved_artifact = copy.deepcopy(found)
            resolved_artifact["name"] = artifact["name"]
            outputs["artifacts"].append(resolved_artifact)
    return outputs


def _key(reference: str) -> str:
    return reference.strip().removeprefix("{{").removesuffix("}}").strip()
