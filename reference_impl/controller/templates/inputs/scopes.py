"""What steps and tasks can see of each other: outputs in scope, outbound nodes, template outputs.

Mirrors Argo's `buildLocalScope`, `addNodeOutputsToLocalScope`, `getOutboundNodes` and
`getTemplateOutputsFromScope` for the variables listed in `substitution`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import gojson

Json = dict[str, Any]


@dataclasses.dataclass
class Scope:
    """Variables from finished steps or tasks: strings for substitution, artifacts for `from`."""

    params: dict[str, str] = dataclasses.field(default_factory=dict)
    artifacts: dict[str, Json] = dataclasses.field(default_factory=dict)


def input_params(template: Json) -> dict[str, str]:
    """Return a processed template's `inputs.parameters.<p>`, seen by its steps or tasks.

    Upstream's `createScope`: an expression may mix them with step outputs.
    """
    return {
        f"inputs.parameters.{p['name']}": str(p.get("value", ""))
        for p in (template.get("inputs") or {}).get("parameters") or []
        if p.get("value") is not None
    }


def add_node(
    scope: Scope, nodes: dict[str, Json], *, kind: str, name: str, node: Json
) -> None:
    """Put a finished step's or task's values into scope as `<kind>.<name>.*`."""
    if node.get("type") == "Retry" and (tried := attempts(nodes, node)):
        node = tried[-1]
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


def attempts(nodes: dict[str, Json], retry_node: Json) -> list[Json]:
    """Return a Retry node's attempts: its children without its exit hook node.

    An exit hook's node hangs off the Retry node too (upstream's `possiblyGetRetryChildNode`
    skips `hooked` children when it looks for the last attempt).
    """
    return [
        nodes[c]
        for c in retry_node.get("children") or []
        if c in nodes and not (nodes[c].get("nodeFlag") or {}).get("hooked")
    ]


_LOOP_INDEX = re.compile(r"\((\d+):[^()]*\)$")


def loop_children(
    nodes: dict[str, Json], *, boundary_id: str, prefix: str
) -> list[Json]:
    """Return the expanded nodes `<prefix>(<i>:<item>)` of a loop in a boundary, by index.

    Retry attempts (`...(0:a)(1)`) are left out, as upstream leaves out `retried` nodes.
    """
    found = [
        n
        for n in nodes.values()
        if n.get("boundaryID") == boundary_id
        and str(n.get("name", "")).startswith(prefix + "(")
        and _LOOP_INDEX.fullmatch(str(n["name"])[len(prefix) :])
    ]
    return sorted(found, key=loop_index)


def loop_index(node: Json) -> int:
    """Return the item index of an expanded node (upstream's `parseLoopIndex`)."""
    match = _LOOP_INDEX.search(str(node.get("name", "")))
    return int(match.group(1)) if match else 0


def add_aggregate(scope: Scope, *, kind: str, name: str, children: list[Json]) -> None:
    """Put a loop's outputs into scope as JSON lists (`processAggregateNodeOutputs`).

    `<kind>.<name>.outputs.result` lists the results, `.outputs.parameters` the output
    parameter maps and `.outputs.parameters.<p>` the values of one parameter, all from the
    succeeded children in item order. Raises WorkflowError (Go's JSON message) when a
    result is not JSON, as upstream does.
    """
    if not children:
        return
    results: list[Any] = []
    maps: list[dict[str, str]] = []
    values: dict[str, list[str]] = {}
    for node in sorted(children, key=loop_index):
        outputs = node.get("outputs") or {}
        if not outputs or node.get("phase") != "Succeeded":
            continue
        if outputs.get("parameters"):
            entry = {}
            for param in outputs["parameters"]:
                value = "" if param.get("value") is None else str(param["value"])
                entry[param["name"]] = value
                values.setdefault(param["name"], []).append(value)
            maps.append(entry)
        if outputs.get("result") is not None:
            try:
                results.append(gojson.loads(str(outputs["result"])))
            except ValueError as err:
                raise errors.WorkflowError(str(err)) from None
    prefix = f"{kind}.{name}.outputs"
    scope.params[f"{prefix}.result"] = gojson.dumps(results)
    scope.params[f"{prefix}.parameters"] = gojson.dumps(maps, sort_all=True)
    for param_name, param_values in values.items():
        scope.params[f"{prefix}.parameters.{param_name}"] = _value_list(param_values)


def _value_list(values: list[str]) -> str:
    """Return one parameter's values as a JSON list (`aggregatedJSONValueList`).

    When every value is a JSON object or list, the list holds them decoded; otherwise it
    holds the strings.
    """
    decoded: list[Any] = []
    for value in values:
        try:
            parsed = json.loads(value, parse_int=float)
        except ValueError:
            return gojson.dumps(values)
        if not isinstance(parsed, list | dict):
            return gojson.dumps(values)
        decoded.append(parsed)
    return gojson.dumps(decoded, sort_all=True)


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


def resolve_artifact_froms(
    resolved: Json,
    artifacts: Mapping[str, Json],
    *,
    context: str = "",
    skip_optional: bool = False,
) -> None:
    """Replace, in place, each of `resolved`'s artifacts that names another with `from`.

    The replacement is a copy of the named artifact under the argument's own name. A
    name not in `artifacts` is a WorkflowError `<context>Unable to resolve: <from>`,
    unless `skip_optional` and the argument is optional (then it stays as it is).
    """
    for index, artifact in enumerate(resolved.get("artifacts") or []):
        reference = str(artifact.get("from") or "")
        if not reference:
            continue
        found = artifacts.get(_key(reference))
        if found is None:
            if skip_optional and artifact.get("optional"):
                continue
            raise errors.WorkflowError(f"{context}Unable to resolve: {reference}")
        replacement = copy.deepcopy(found)
        replacement["name"] = artifact["name"]
        resolved["artifacts"][index] = replacement


def _key(reference: str) -> str:
    return reference.strip().removeprefix("{{").removesuffix("}}").strip()
