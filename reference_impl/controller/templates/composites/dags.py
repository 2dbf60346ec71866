"""DAG templates: tasks run when their dependencies allow (`dependencies` or `depends`).

Mirrors Argo's `workflow/controller/dag.go`: node `<dag>.<task>` per task; a task whose
`depends` condition is false is Omitted (`omitted: depends condition not met`); the DAG
fails when a target task's branch failed (fail-fast by default) and fails at once when the
workflow is shutting down (`depends` is evaluated in `depends`). A task whose `when` is
false is Skipped; a looping task is a TaskGroup node `<dag>.<task>` whose children are the
items `<dag>.<task>(<index>:<item>)` (#13).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from reference_impl.controller import errors
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import naming
from reference_impl.controller.templates.checks import validation
from reference_impl.controller.templates.composites import depends
from reference_impl.controller.templates.composites import node_init
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import Json
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.inputs import conditions
from reference_impl.controller.templates.inputs import loops
from reference_impl.controller.templates.inputs import references
from reference_impl.controller.templates.inputs import scopes
from reference_impl.controller.templates.nodes import hooks
from reference_impl.controller.templates.nodes import inference
from reference_impl.controller.templates.nodes import parallelism
from reference_impl.controller.templates.nodes import timeouts

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation


@dataclasses.dataclass(frozen=True)
class _Dag:
    """The DAG being executed: what every step of a pass over its tasks works on.

    `inputs` are the DAG template's input parameters, in every task's scope (`createScope`).
    """

    op: Operation
    node: Json
    tasks: dict[str, Json]
    inputs: dict[str, str]
    opts: ExecuteOptions


def execute(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Start every task whose turn has come, then assess the DAG; return its node."""
    node = node_init.start(op, node_name, template, opts, "DAG")
    spec = template["dag"]
    tasks = {t["name"]: t for t in spec["tasks"]}
    targets = str(spec.get("target") or "").split() or _leaf_tasks(spec["tasks"])
    visited: set[str] = set()
    inputs = scopes.input_params(template)
    dag = _Dag(op=op, node=node, tasks=tasks, inputs=inputs, opts=opts)
    for target in targets:
        _execute_task(dag, target, visited)
    if op.settings.has_fault(Fault.EXIT_HOOK_TWICE):
        errored = _rerun_target_exit_hooks(dag, targets)
        if errored is not None:
            return errored
    phase = _assess(
        op,
        node,
        tasks,
        targets,
        fail_fast=spec.get("failFast", True) is not False,
        shutdown=bool(op.shutdown) and not opts.on_exit,
    )
    if phase == "Running":
        return node
    _update_outbound(op, node, targets)
    if phase in inference.FAILED_OR_ERROR:
        return op.mark_node(node_name, phase)
    scope = scopes.Scope(params={**op.global_params(), **inputs})
    try:
        for task in spec["tasks"]:
            task_node = op.node(naming.task_name(node_name, task["name"]))
            if task_node is not None:
                _add_task(op, scope, node, task["name"], task_node)
                op.export_outputs(task_node.get("outputs"))
        outputs = scopes.template_outputs(template, scope)
    except errors.WorkflowError as err:
        return op.mark_node(node_name, "Error", str(err))
    if outputs is not None:
        node["outputs"] = outputs
    return op.mark_node(node_name, "Succeeded")


def _leaf_tasks(tasks: list[Json]) -> list[str]:
    """Return the tasks nothing depends on, sorted as upstream's `findLeafTaskNames` does."""
    depended = {d for t in tasks for d in validation.dependencies_of(t)}
    return sorted(t["name"] for t in tasks if t["name"] not in depended)


def _execute_task(dag: _Dag, name: str, visited: set[str]) -> None:
    """Run a task once its dependencies allow (`executeDAGTask`)."""
    if name in visited:
        return
    visited.add(name)
    task = dag.tasks[name]
    node_name = naming.task_name(dag.node["name"], name)
    existing = dag.op.node(node_name)
    if existing is not None and inference.fulfilled(existing):
        _run_exit_hook(dag, task, existing)
        return
    dependencies = validation.dependencies_of(task)
    for dependency in dependencies:
        _execute_task(dag, dependency, visited)
    if existing is None:
        dependency_nodes = [
            dag.op.node(naming.task_name(dag.node["name"], d)) for d in dependencies
        ]
        if any(
            d is None
            or not inference.fulfilled(d)
            or not hooks.hooks_fulfilled(dag.op, d)
            for d in dependency_nodes
        ):
            return
        results = {
            d: depends.task_results(n, dag.op.nodes)
            for d, n in zip(dependencies, dependency_nodes, strict=True)
            if n
        }
        try:
            proceed = (
                depends.evaluate_depends(
                    depends.depends_logic(task, dag.tasks), results, dag.tasks
                )
                if dependencies
                else True
            )
        except errors.WorkflowError as err:
            _skip(dag, task, "Error", str(err))
            return
        if not proceed:
            _skip(dag, task, "Omitted", "omitted: depends condition not met")
            return
    scope = _scope(dag)
    try:
        resolved = references.resolve(task, scope)
        expanded = references.expand(resolved, scope.params)
    except errors.WorkflowError as err:
        if existing is None:
            _skip(dag, task, "Error", str(err))
        return
    group = existing if (existing or {}).get("type") == "TaskGroup" else None
    if loops.has_loop(task):
        if not expanded:
            if existing is None:
                _skip(dag, task, "Skipped", loops.EMPTY_MESSAGE)
            return
        if group is None:
            _connect(dag, task, node_name, None)
            group = dag.op.init_node(
                node_name,
                node_type="TaskGroup",
                template_name=str(task.get("template", "")),
                boundary_id=dag.node["id"],
                phase="Running",
            )
    if not _run_expanded(dag, task, expanded, group):
        return
    if group is not None:
        _complete_group(dag.op, group, dag.node, expanded)
        return
    node = dag.op.node(node_name)
    if node is not None and inference.fulfilled(node):
        _run_exit_hook(dag, task, node)


def _run_exit_hook(dag: _Dag, task: Json, node: Json) -> None:
    """Run a completed task's exit hook (`runOnExitNode`); the assessment waits for it.

    A hook that cannot run errors the task's hook node, as upstream leaves it; a
    parallelism limit holds it back until a later pass.
    """
    try:
        _call_exit_hook(dag, task, node)
    except parallelism.ParallelismReached:
        return
    except errors.WorkflowError:
        return  # the hook's node is marked Error; the DAG's assessment sees it


def _call_exit_hook(dag: _Dag, task: Json, node: Json) -> None:
    """Execute a completed task's exit hook, if it has one.

    Raises `parallelism.ParallelismReached` when a limit holds it back, and
    WorkflowError when it cannot run (its node is then Error).
    """
    if node.get("phase") not in inference.COMPLETED:
        return
    hook = hooks.exit_hook(task, dag.op.spec.get("arguments") or {})
    if hook is None:
        return
    hooks.run_on_exit(
        dag.op,
        hook,
        node,
        boundary_id=dag.node["id"],
        kind="tasks",
        name=task["name"],
        scope=_scope(dag),
    )


def _rerun_target_exit_hooks(dag: _Dag, targets: list[str]) -> Json | None:
    """The `exit-hook-twice` fault: upstream v4.0's second exit-hook call per pass.

    Each completed target task's exit hook is executed again; when a limit holds that
    call back (with `spec.parallelism: 1`, the hook's own pod, created by the first
    call, takes the slot), the DAG errors with `Max parallelism reached` instead of
    waiting for a later pass (argoproj/argo-workflows#14392), breaking
    WPC-STATUS-020. Returns the errored DAG node, else None.
    """
    for target in targets:
        node = dag.op.node(naming.task_name(dag.node["name"], target))
        if node is None:
            continue
        try:
            _call_exit_hook(dag, dag.tasks[target], node)
        except parallelism.ParallelismReached as reached:
            return dag.op.mark_node(dag.node["name"], "Error", str(reached))
        except errors.WorkflowError:
            continue  # as the first call: the hook's node is already Error
    return None


def _run_expanded(
    dag: _Dag, task: Json, expanded: list[Json], group: Json | None
) -> bool:
    """Start the (expanded) task's nodes; False when the task must stop for this pass."""
    child_opts = ExecuteOptions(boundary_id=dag.node["id"], on_exit=dag.opts.on_exit)
    for item in expanded:
        child_name = naming.task_name(dag.node["name"], item["name"])
        if dag.op.node(child_name) is None:
            _connect(dag, task, child_name, group)
            when = str(item.get("when") or "")
            try:
                proceed = conditions.should_execute(when)
            except errors.WorkflowError as err:
                node_init.init_skipped(
                    dag.op, child_name, task, dag.node, "Error", str(err)
                )
                continue
            if not proceed:
                message = conditions.skipped_message(when)
                node_init.init_skipped(
                    dag.op, child_name, task, dag.node, "Skipped", message
                )
                continue
        try:
            node_init.execute_child(dag.op, child_name, item, child_opts)
        except parallelism.ParallelismReached as reached:
            if reached.node is None:
                return False
        except timeouts.TimedOut:
            return False  # the node is already Failed with `timeout`, as upstream leaves it
        except TemplateError as err:
            dag.op.mark_node(child_name, "Error", f"task '{child_name}' errored: {err}")
            return False
    return True


def _complete_group(
    op: Operation, group: Json, dag_node: Json, expanded: list[Json]
) -> None:
    """Give a TaskGroup its phase once every item is done: the last failure, else Succeeded."""
    phase = "Succeeded"
    for item in expanded:
        child = op.node(naming.task_name(dag_node["name"], item["name"]))
        if child is None or not inference.fulfilled(child):
            return
        if child.get("phase") in inference.FAILED_OR_ERROR:
            phase = str(child["phase"])
    op.mark_node(group["name"], phase)


def _scope(dag: _Dag) -> scopes.Scope:
    """Return what a task can see: the DAG's inputs and the finished tasks.

    Upstream's `createScope` and `buildLocalScopeFromTask`.
    """
    scope = scopes.Scope(
        params={**dag.op.global_params(), **dag.inputs},
        artifacts=dag.op.global_artifacts(),
    )
    for other in dag.tasks:
        other_node = dag.op.node(naming.task_name(dag.node["name"], other))
        if other_node is None or not inference.fulfilled(other_node):
            continue
        _add_task(dag.op, scope, dag.node, other, other_node)
    return scope


def _add_task(
    op: Operation, scope: scopes.Scope, dag_node: Json, name: str, node: Json
) -> None:
    if node.get("type") == "TaskGroup":
        children = scopes.loop_children(
            op.nodes, boundary_id=dag_node["id"], prefix=node["name"]
        )
        scopes.add_aggregate(scope, kind="tasks", name=name, children=children)
    scopes.add_node(scope, op.nodes, kind="tasks", name=name, node=node)


def _skip(dag: _Dag, task: Json, phase: str, message: str) -> None:
    node_name = naming.task_name(dag.node["name"], task["name"])
    node_init.init_skipped(dag.op, node_name, task, dag.node, phase, message)
    _connect(dag, task, node_name, None)


def _connect(dag: _Dag, task: Json, node_name: str, group: Json | None) -> None:
    """Hang a node off its TaskGroup, else its dependencies' outbound nodes, else the DAG."""
    dependencies = validation.dependencies_of(task)
    if group is not None:
        dag.op.add_child(group["name"], node_name)
        return
    if not dependencies:
        dag.op.add_child(dag.node["name"], node_name)
        return
    for dependency in dependencies:
        dependency_node = dag.op.node(naming.task_name(dag.node["name"], dependency))
        if dependency_node is None:
            continue
        for outbound_id in scopes.outbound_nodes(dag.op.nodes, dependency_node["id"]):
            dag.op.add_child(dag.op.nodes[outbound_id]["name"], node_name)


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
    to_complete: dict[str, str] = {}
    while queue:
        node_id, phase = queue.pop(0)
        if (node_id, phase) in seen:
            continue
        seen.add((node_id, phase))
        node = op.nodes.get(node_id)
        if node is None:
            return _complete_groups(op, to_complete, "Running")
        if not inference.fulfilled(node):
            group_phase = _completable_group_phase(op, node)
            if group_phase is None:
                return _complete_groups(op, to_complete, "Running")
            to_complete[node["name"]] = phase = group_phase
        elif node.get("phase") in inference.COMPLETED:
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
                for g in (
                    [c]
                    if ((op.nodes.get(c) or {}).get("nodeFlag") or {}).get("hooked")
                    else (op.nodes.get(c) or {}).get("children") or []
                )
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
    return _complete_groups(op, to_complete, result)


def _completable_group_phase(op: Operation, node: Json) -> str | None:
    """Return the phase a Running TaskGroup whose items are all done should have, else None.

    Such a group is never revisited by task execution, so the assessment completes it, as
    upstream's `completableTaskGroupPhase` does.
    """
    children = node.get("children") or []
    if node.get("type") != "TaskGroup" or not children:
        return None
    phase = "Succeeded"
    for child_id in children:
        child = op.nodes.get(child_id)
        if child is None or not inference.fulfilled(child):
            return None
        if child.get("phase") in inference.FAILED_OR_ERROR:
            phase = str(child["phase"])
    return phase


def _complete_groups(op: Operation, to_complete: dict[str, str], result: str) -> str:
    for name, phase in to_complete.items():
        op.mark_node(name, phase)
    return result


def _update_outbound(op: Operation, dag_node: Json, targets: list[str]) -> None:
    outbound: list[str] = []
    for target in targets:
        node = op.node(naming.task_name(dag_node["name"], target))
        if node is not None:
            outbound += scopes.outbound_nodes(op.nodes, node["id"])
    dag_node["outboundNodes"] = outbound
