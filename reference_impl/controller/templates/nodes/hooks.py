"""Exit hooks of steps, tasks and the workflow (`hooks: {exit: ...}` and the older `onExit`).

Mirrors `workflow/controller/exit_handler.go` `runOnExitNode` and the `GetExitHook` methods
of `workflow_types.go`: once a step or task has completed (Succeeded, Failed or Error, not
Skipped or Omitted) its exit hook runs as node `<node>.onExit`, a child of that node in
the same boundary, flagged `hooked`, and treated as part of an exit handler (a Stop lets
it run). The step group, the DAG and a task's dependents wait for it; its own phase does
not change theirs. `onExit` wins over `hooks.exit`; a hook without arguments gets the
workflow's arguments. The hook's arguments may name the step's own outputs
(`{{steps.<name>.outputs.parameters.<p>}}`) and status (`{{steps.<name>.status}}`).
Expression hooks (any other key, or `expression`) are rejected at validation.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller.formats import naming
from reference_impl.controller.formats import substitution
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.inputs import scopes
from reference_impl.controller.templates.nodes import inference

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
EXIT = "exit"


def exit_hook(holder: Json, workflow_args: Json) -> Json | None:
    """Return the exit hook of a step, task or workflow spec, or None (`GetExitHook`)."""
    if holder.get("onExit"):
        return {"template": str(holder["onExit"]), "arguments": workflow_args}
    hook = (holder.get("hooks") or {}).get(EXIT)
    if hook is None:
        return None
    resolved: Json = copy.deepcopy(hook)
    if not _has_arguments(resolved.get("arguments")):
        resolved["arguments"] = workflow_args
    return resolved


def _has_arguments(args: Json | None) -> bool:
    return bool((args or {}).get("parameters") or (args or {}).get("artifacts"))


def is_step_hook_pod(node: Json, workflow_name: str) -> bool:
    """Return whether the node is a Pod node running a step's or task's exit hook.

    That is a `hooked` Pod node other than the workflow's own exit handler
    (`<workflow>.onExit`); the `rerun-hook-on-restart` fault targets these.
    """
    return (
        node.get("type") == "Pod"
        and bool((node.get("nodeFlag") or {}).get("hooked"))
        and node.get("name") != naming.on_exit_name(workflow_name)
    )


def hooks_fulfilled(op: Operation, node: Json) -> bool:
    """Return whether every hooked child of the node is fulfilled (`CheckAllHooksFullfilled`)."""
    for child_id in node.get("children") or []:
        child = op.nodes.get(child_id)
        if child is None:
            continue
        if (child.get("nodeFlag") or {}).get("hooked") and not inference.fulfilled(
            child
        ):
            return False
    return True


def run_on_exit(
    op: Operation,
    hook: Json | None,
    parent: Json,
    *,
    boundary_id: str,
    kind: str,
    name: str,
    scope: scopes.Scope,
) -> Json | None:
    """Run a completed step's or task's exit hook; return its node, or None when none runs.

    Raises TemplateError when the hook's node errors, WorkflowError when its arguments
    cannot be resolved, and `parallelism.ParallelismReached` when a limit holds it back.
    """
    if hook is None or not op.should_execute(True):
        return None
    exit_name = naming.on_exit_name(parent["name"])
    args = hook.get("arguments") or {}
    if _has_arguments(args):
        args = _resolve_arguments(op, args, parent, kind=kind, name=name, scope=scope)
    try:
        return op.execute_template(
            exit_name,
            str(hook.get("template", "")),
            args,
            ExecuteOptions(boundary_id=boundary_id, on_exit=True, hooked=True),
        )
    finally:
        if op.node(exit_name) is not None:
            op.add_child(parent["name"], exit_name)


def _resolve_arguments(
    op: Operation,
    args: Json,
    parent: Json,
    *,
    kind: str,
    name: str,
    scope: scopes.Scope,
) -> Json:
    """Resolve the hook's arguments with the parent's outputs in scope (`resolveExitTmplArgument`).

    Unresolvable parameter references are left as they are, as upstream leaves them.
    """
    params = {**scope.params, f"{kind}.{name}.status": str(parent.get("phase", ""))}
    artifacts = dict(scope.artifacts)
    source = parent
    if parent.get("type") == "Retry":
        attempts = scopes.attempts(op.nodes, parent)
        source = attempts[-1] if attempts else parent
    outputs = source.get("outputs") or {}
    for param in outputs.get("parameters") or []:
        value = param.get("value")
        params[f"{kind}.{name}.outputs.parameters.{param['name']}"] = (
            "" if value is None else str(value)
        )
    for artifact in outputs.get("artifacts") or []:
        artifacts[f"{kind}.{name}.outputs.artifacts.{artifact['name']}"] = artifact
    resolved: Json = substitution.substitute_tree(copy.deepcopy(args), params)
    scopes.resolve_artifact_froms(
        resolved,
        artifacts,
        context="unable to resolve references: ",
        skip_optional=True,
    )
    return resolved
