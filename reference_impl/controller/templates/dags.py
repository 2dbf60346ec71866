"""DAG templates: tasks run when their dependencies allow (`dependencies` or `depends`).

Mirrors Argo's `workflow/controller/dag.go`: node `<dag>.<task>` per task; a task whose
`depends` condition is false is Omitted (`omitted: depends condition not met`); the DAG
fails when a target task's branch failed (fail-fast by default) and fails at once when the
workflow is shutting down. `depends` supports task names, `.Succeeded|Failed|Errored|
Skipped|Omitted|Daemoned`, `&&`, `||`, `!` and parentheses.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import naming
from reference_impl.controller.templates import arguments
from reference_impl.controller.templates import inference
from reference_impl.controller.templates import scopes
from reference_impl.controller.templates import timeouts
from reference_impl.controller.templates import validation
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
_TOKEN = re.compile(
    r"\s*(&&|\|\||!|\(|\)|[A-Za-z0-9][-A-Za-z0-9_]*(?:\.[A-Z][A-Za-z]+)?)"
)


def execute(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Start every task whose turn has come, then assess the DAG; return its node."""
    node = op.node(node_name) or op.init_node(
        node_name,
        node_type="DAG",
        template_name=template["name"],
        boundary_id=opts.boundary_id,
        phase="Running",
        hooked=opts.hooked,
    )
    dag = template["dag"]
    tasks = {t["name"]: t for t in dag["tasks"]}
    targets = str(dag.get("target") or "").split() or _leaf_tasks(dag["tasks"])
    visited: set[str] = set()
    for target in targets:
        _execute_task(op, node, tasks, target, visited, opts)
    phase = _assess(
        op,
        node,
        tasks,
        targets,
        fail_fast=dag.get("failFast", True) is not False,
        shutdown=bool(op.shutdown) and not opts.on_exit,
    )
    if phase == "Running":
        return node
    _update_outbound(op, node, targets)
    if phase in inference.FAILED_OR_ERROR:
        return op.mark_node(node_name, phase)
    scope = scopes.Scope(params=op.global_params())
    for task in dag["tasks"]:
        task_node = op.node(naming.task_name(node_name, task["name"]))
        if task_node is not None:
            scopes.add_node(
                scope, op.nodes, kind="tasks", name=task["name"], node=task_node
            )
    try:
        outputs = scopes.template_outputs(template, scope)
    except errors.WorkflowError as err:
        return op.mark_node(node_name, "Error", str(err))
    if outputs is not None:
        node["outputs"] = outputs
    return op.mark_node(node_name, "Succeeded")


def depends_logic(task: Json, tasks: dict[str, Json]) -> str:
    """Return the task's `depends` expression, expanding `dependencies` like Argo."""
    if task.get("depends"):
        return str(task["depends"])
    return " && ".join(
        _expand(name, tasks.get(name, {})) for name in task.get("dependencies") or []
    )


def evaluate_depends(
    logic: str, results: dict[str, str], tasks: dict[str, Json]
) -> bool:
    """Evaluate a `depends` expression given each dependency's phase.

    Raises WorkflowError `unable to evaluate expression '<logic>'` for a malformed one.
    """
    tokens: list[str] = [t for t in _TOKEN.findall(logic) if t]
    if "".join(tokens) != re.sub(r"\s+", "", logic):
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def disjunction() -> bool:
        value = conjunction()
        while peek() == "||":
            take()
            value = conjunction() or value
        return value

    def conjunction() -> bool:
        value = unary()
        while peek() == "&&":
            take()
            value = unary() and value
        return value

    def unary() -> bool:
        token = peek()
        if token == "!":
            take()
            return not unary()
        if token == "(":
            take()
            value = disjunction()
            if take() != ")":
                raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
            return value
        if token is None or token in ("&&", "||", ")"):
            raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
        take()
        if "." not in token:
            return evaluate_depends(
                _expand(token, tasks.get(token, {})), results, tasks
            )
        name, result = token.split(".", 1)
        return _matches(results.get(name, ""), result)

    try:
        value = disjunction()
    except IndexError:
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'") from None
    if position != len(tokens):
        raise errors.WorkflowError(f"unable to evaluate expression '{logic}'")
    return value


def _expand(name: str, task: Json) -> str:
    results = [f"{name}.Succeeded", f"{name}.Skipped", f"{name}.Daemoned"]
    continue_on = task.get("continueOn") or {}
    if continue_on.get("error"):
        results.append(f"{name}.Errored")
    if continue_on.get("failed"):
        results.append(f"{name}.Failed")
    return "(" + " || ".join(results) + ")"


def _matches(phase: str, result: str) -> bool:
    return {"Errored": "Error"}.get(result, result) == phase


def _leaf_tasks(tasks: list[Json]) -> list[str]:
    depended = {d for t in tasks for d in validation.dependencies_of(t)}
    return [t["name"] for t in tasks if t["name"] not in depended]


def _execute_task(
    op: Operation,
    dag_node: Json,
    tasks: dict[str, Json],
    name: str,
    visited: set[str],
    opts: ExecuteOptions,
) -> None:
    if name in visited:
        return
    visited.add(name)
    task = tasks[name]
    node_name = naming.task_name(dag_node["name"], name)
    existing = op.node(node_name)
    if existing is not None and inference.fulfilled(existing):
        return
    dependencies = validation.dependencies_of(task)
    for dependency in dependencies:
        _execute_task(op, dag_node, tasks, dependency, visited, opts)
    if existing is None:
        dependency_nodes = [
            op.node(naming.task_name(dag_node["name"], d)) for d in dependencies
        ]
        if any(d is None or not inference.fulfilled(d) for d in dependency_nodes):
            return
        results = {
            d: str(n.get("phase"))
            for d, n in zip(dependencies, dependency_nodes, strict=True)
            if n
        }
        try:
            proceed = (
                evaluate_depends(depends_logic(task, tasks), results, tasks)
                if dependencies
                else True
            )
            args = _resolve_arguments(op, dag_node, tasks, task)
        except errors.WorkflowError as err:
            _skip(op, dag_node, tasks, task, "Error", str(err))
            return
        if not proceed:
            _skip(
                op,
                dag_node,
                tasks,
                task,
                "Omitted",
                "omitted: depends condition not met",
            )
            return
        _connect(op, dag_node, tasks, task, node_name)
    else:
        args = _resolve_arguments(op, dag_node, tasks, task)
    child_opts = ExecuteOptions(boundary_id=dag_node["id"], on_exit=opts.on_exit)
    try:
        op.execute_template(node_name, task.get("template", ""), args, child_opts)
    except timeouts.TimedOut:
        return  # the node is already Failed with `timeout`, as upstream leaves it
    except TemplateError as err:
        op.mark_node(node_name, "Error", f"task '{node_name}' errored: {err}")


def _resolve_arguments(
    op: Operation, dag_node: Json, tasks: dict[str, Json], task: Json
) -> Json:
    scope = scopes.Scope(params=op.global_params())
    for other in tasks:
        other_node = op.node(naming.task_name(dag_node["name"], other))
        if other_node is not None and inference.fulfilled(other_node):
            scopes.add_node(scope, op.nodes, kind="tasks", name=other, node=other_node)
    return arguments.resolve_arguments(
        task.get("arguments") or {}, scope.params, scope.artifacts
    )


def _skip(
    op: Operation,
    dag_node: Json,
    tasks: dict[str, Json],
    task: Json,
    phase: str,
    message: str,
) -> None:
    node_name = naming.task_name(dag_node["name"], task["name"])
    op.init_node(
        node_name,
        node_type="Skipped",
        template_name=task.get("template", ""),
        boundary_id=dag_node["id"],
        phase=phase,
        message=message,
    )
    _connect(op, dag_node, tasks, task, node_name)


def _connect(
    op: Operation, dag_node: Json, tasks: dict[str, Json], task: Json, node_name: str
) -> None:
    dependencies = validation.dependencies_of(task)
    if not dependencies:
        op.add_child(dag_node["name"], node_name)
        return
    for dependency in dependencies:
        dependency_node = op.node(naming.task_name(dag_node["name"], dependency))
        if dependency_node is None:
            continue
        for outbound_id in scopes.outbound_nodes(op.nodes, dependency_node["id"]):
            op.add_child(op.nodes[outbound_id]["name"], node_name)


def _assess(
    op: Operation,
    dag_node: Json,
    tasks: dict[str, Json],
    targets: list[str],
    *,
    fail_fast: bool,
    shutdown: bool,
) -> str:
    """Return the DAG's phase from its target tasks' branches (`assessDAGPhase`)."""
    if shutdown:
        return "Failed"
    target_ids = {op.node_id(naming.task_name(dag_node["name"], t)): t for t in targets}
    branch: dict[str, str] = dict.fromkeys(target_ids, "")
    queue = [(c, "Succeeded") for c in dag_node.get("children") or []]
    # A node is visited once per branch phase, not once: an Omitted task reached first
    # from a branch that succeeded must be reached again from one that failed, or a
    # failure only partly handled by `depends` would pass as success (#16; upstream's
    # `uniquePhaseNodeQueue` in workflow/controller/phase_node.go keys on node and phase).
    seen: set[tuple[str, str]] = set()
    while queue:
        node_id, phase = queue.pop(0)
        if (node_id, phase) in seen:
            continue
        seen.add((node_id, phase))
        node = op.nodes.get(node_id)
        if node is None or not inference.fulfilled(node):
            return "Running"
        if node.get("phase") in inference.COMPLETED:
            phase = str(node["phase"])
        if node_id in branch and branch[node_id] not in inference.FAILED_OR_ERROR:
            branch[node_id] = phase
        children = node.get("children") or []
        if (
            node.get("type") == "Retry"
        ):  # its attempts don't matter; what hangs off them does
            children = [
                g
                for c in children
                for g in (op.nodes.get(c) or {}).get("children") or []
            ]
        queue += [(c, phase) for c in children]
    result = "Succeeded"
    for node_id, target in target_ids.items():
        phase = branch[node_id]
        if not phase:
            result = "Running"
            if not fail_fast:
                break
        elif phase in inference.FAILED_OR_ERROR:
            continue_on = tasks[target].get("continueOn") or {}
            if (phase == "Failed" and continue_on.get("failed")) or (
                phase == "Error" and continue_on.get("error")
            ):
                continue
            result = phase
            if fail_fast:
                break
    return result


def _update_outbound(op: Operation, dag_node: Json, targets: list[str]) -> None:
    outbound: list[str] = []
    for target in targets:
        node = op.node(naming.task_name(dag_node["name"], target))
        if node is not None:
            outbound += scopes.outbound_nodes(op.nodes, node["id"])
    dag_node["outboundNodes"] = outbound
