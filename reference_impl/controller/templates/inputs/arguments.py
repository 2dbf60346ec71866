"""Template inputs from arguments (Argo's `ProcessArgs`) and references between steps/tasks.

A template's input parameter takes the caller's argument, else its own `value`, else its
`default`; without any it fails with `inputs.parameters.<p> was not supplied`. Input
artifacts take the caller's artifact (location included) and keep their own `path`.
Afterwards the template is substituted with `inputs.*`, `workflow.*` and local variables.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import substitution
from reference_impl.controller.pods import volumes
from reference_impl.controller.templates.inputs import scopes

Json = dict[str, Any]


def any_string(value: Any) -> str:
    """Return a parameter value as Argo's `AnyString` spells it (`true`, `1`, `1.5`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def process_inputs(template: Json, args: Json, params: Mapping[str, str]) -> Json:
    """Return the template with inputs filled from `args` and every known variable substituted.

    Raises WorkflowError with Argo's message when an input is missing.
    """
    result = copy.deepcopy(template)
    inputs = result.get("inputs") or {}
    supplied = {p.get("name"): p for p in args.get("parameters") or []}
    local = dict(params)
    for param in inputs.get("parameters") or []:
        value = param.get("value")
        if value is None:
            value = param.get("default")
        if value is None and param.get("valueFrom"):
            value = param["valueFrom"].get("default")
        argument = supplied.get(param["name"])
        if argument is not None and argument.get("value") is not None:
            value = argument["value"]
        if value is None:
            raise errors.WorkflowError(
                f"inputs.parameters.{param['name']} was not supplied"
            )
        param["value"] = any_string(value)
        local[f"inputs.parameters.{param['name']}"] = param["value"]
    given = {a.get("name"): a for a in args.get("artifacts") or []}
    for index, artifact in enumerate(inputs.get("artifacts") or []):
        argument = given.get(artifact["name"])
        if not artifact.get("optional") and not volumes.has_location(artifact):
            if argument is None:
                raise errors.WorkflowError(
                    f"inputs.artifacts.{artifact['name']} was not supplied"
                )
            if not volumes.has_location(argument):
                raise errors.WorkflowError(
                    f"inputs.artifacts.{artifact['name']} missing location information"
                )
        if argument is not None:
            replacement = {
                k: copy.deepcopy(v)
                for k, v in argument.items()
                if k not in ("from", "fromExpression")
            }
            for key in ("path", "mode", "recurseMode"):
                if artifact.get(key) is not None:
                    replacement[key] = artifact[key]
            inputs["artifacts"][index] = replacement
        if inputs["artifacts"][index].get("path"):
            local[f"inputs.artifacts.{artifact['name']}.path"] = inputs["artifacts"][
                index
            ]["path"]
    substituted: Json = substitution.substitute_tree(result, local)
    return substituted


def resolve_arguments(
    args: Json, params: Mapping[str, str], artifacts: Mapping[str, Json]
) -> Json:
    """Return a step's or task's arguments with references to earlier outputs resolved.

    Raises WorkflowError `failed to resolve {{...}}` for a reference to an output that does
    not exist (yet), like Argo's `resolveReferences`.
    """
    resolved: Json = substitution.substitute_tree(
        copy.deepcopy(args), params, ("steps", "tasks")
    )
    for tag in substitution.unresolved(resolved.get("parameters") or []):
        if tag.strip("{} ").startswith(("steps.", "tasks.", "inputs.", "workflow.")):
            raise errors.WorkflowError(f"failed to resolve {tag}")
    scopes.resolve_artifact_froms(resolved, artifacts)
    return resolved
