"""Steps templates: groups run one after the other, the steps of a group in parallel.

Mirrors Argo's `workflow/controller/steps.go`: node `<parent>[i]` is step group i, node
`<parent>[i].<step>` a step; a failed step fails its group with `child '<nodeID>' failed`
unless `continueOn` allows it, and a failed group fails the steps node with that message.
A step whose `when` is false is a Skipped node; a looping step becomes one child of the
group per item, `<parent>[i].<step>(<index>:<item>)` (#13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_impl.controller import errors
from reference_impl.controller.formats import naming
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


def execute(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Advance a steps node as far as finished groups allow; return the node."""
    node = node_init.start(op, node_name, template, opts, "Steps")
    scope = scopes.Scope(
        params={**op.global_params(), **scopes.input_params(template)},
        artifacts=op.global_artifacts(),
    )
    groups = [
        g if isinstance(g, list) else (g or {}).get("steps") or []
        for g in template["steps"]
    ]
    for index, group in enumerate(groups):
        group_name = naming.step_group_name(node_name, index)
        group_node = op.node(group_name)
        if group_node is None:
            op.init_node(
                group_name,
                node_type="StepGroup",
                template_name="",
                boundary_id=node["id"],
                phase="Running",
            )
        elif not inference.fulfilled(group_node):
            op.mark_node(group_name, "Running")
        _connect(op, node_name, index)
        group_node = _execute_group(op, group, group_name, node, scope, opts)
        if not inference.fulfilled(group_node):
            return node
        if group_node.get("phase") in inference.FAILED_OR_ERROR:
            _update_outbound(op, node, group_name)
            return op.mark_node(node_name, "Failed", group_node.get("message", ""))
        try:
            _add_group_to_scope(op, scope, group, group_name, node)
        except errors.WorkflowError as err:
            op.mark_node(node_name, "Error", str(err))
            raise TemplateError(str(err)) from err
    _update_outbound(op, node, naming.step_group_name(node_name, len(groups) - 1))
    try:
        outputs = scopes.template_outputs(template, scope)
    except errors.WorkflowError as err:
        return op.mark_node(node_name, "Error", str(err))
    if outputs is not None:
        node["outputs"] = outputs
        op.export_outputs(outputs)
    return op.mark_node(node_name, "Succeeded")


def _add_group_to_scope(
    op: Operation, scope: scopes.Scope, group: list[Json], group_name: str, node: Json
) -> None:
    """Put a finished group's steps into scope; a loop as its aggregated outputs."""
    for step in group:
        child_name = naming.step_name(group_name, step["name"])
        child = op.node(child_name)
        if child is not None:
            scopes.add_node(
                scope, op.nodes, kind="steps", name=step["name"], node=child
            )
            continue
        expanded = [
            n
            for n in scopes.loop_children(
                op.nodes, boundary_id=node["id"], prefix=child_name
            )
            if n.get("type") != "Skipped"
        ]
        scopes.add_aggregate(scope, kind="steps", name=step["name"], children=expanded)
        group_node = op.node(group_name)
        if group_node is not None:
            scopes.add_node(
                scope, op.nodes, kind="steps", name=step["name"], node=group_node
            )


def _connect(op: Operation, node_name: str, index: int) -> None:
    group_name = naming.step_group_name(node_name, index)
    if index == 0:
        op.add_child(node_name, group_name)
        return
    previous_name = naming.step_group_name(node_name, index - 1)
    previous = op.node(previous_name) or {}
    if not previous.get("children"):
        op.add_child(previous_name, group_name)
        return
    for child_id in previous["children"]:
        for outbound_id in scopes.outbound_nodes(op.nodes, child_id):
            op.add_child(op.nodes[outbound_id]["name"], group_name)


def _execute_group(
    op: Operation,
    group: list[Json],
    group_name: str,
    boundary: Json,
    scope: scopes.Scope,
    opts: ExecuteOptions,
) -> Json:
    """Start the group's due steps and assess it (`executeStepGroup`)."""
    group_node = op.node(group_name)
    assert group_node is not None  # initialized by the caller
    children = [op.nodes.get(c) for c in group_node.get("children") or []]
    if inference.fulfilled(group_node) and all(
        c is not None and inference.fulfilled(c) for c in children
    ):
        return group_node
    try:
        resolved = [references.resolve(step, scope) for step in group]
    except references.WhenError as err:
        return op.mark_node(group_name, "Error", f"failed to resolve references: {err}")
    except errors.WorkflowError as err:
        return op.mark_node(group_name, "Error", str(err))
    try:
        expanded = _expand(op, resolved, group_name, boundary, scope)
    except errors.WorkflowError as err:
        return op.mark_node(group_name, "Error", str(err))
    child_opts = ExecuteOptions(boundary_id=boundary["id"], on_exit=opts.on_exit)
    executed: dict[str, Json] = {}
    for step in expanded:
        child_name = naming.step_name(group_name, step["name"])
        try:
            proceed = conditions.should_execute(str(step.get("when") or ""))
        except errors.WorkflowError as err:
            if op.node(child_name) is None:
                node_init.init_skipped(
                    op, child_name, step, boundary, "Error", str(err)
                )
            op.add_child(group_name, child_name)
            op.mark_node(child_name, "Error", str(err))
            return op.mark_node(group_name, "Error", str(err))
        if not proceed:
            if op.node(child_name) is None:
                message = conditions.skipped_message(str(step["when"]))
                node_init.init_skipped(
                    op, child_name, step, boundary, "Skipped", message
                )
                op.add_child(group_name, child_name)
            continue
        try:
            node_init.execute_child(op, child_name, step, child_opts)
        except parallelism.ParallelismReached as reached:
            if reached.node is None:
                continue
        except timeouts.TimedOut as err:
            return op.mark_node(group_name, "Failed", str(err))
        except TemplateError as err:
            op.add_child(group_name, child_name)
            message = (
                f"step group deemed errored due to child {child_name} error: {err}"
            )
            return op.mark_node(group_name, "Error", message)
        executed[op.node_id(child_name)] = step
        op.add_child(group_name, child_name)
    started = [op.nodes[c] for c in group_node.get("children") or [] if c in op.nodes]
    try:
        completed = _run_exit_hooks(op, started, executed, boundary, scope)
    except errors.WorkflowError as err:
        return op.mark_node(group_name, "Error", str(err))
    if not completed:
        if inference.fulfilled(group_node):
            return op.mark_node(group_name, "Running")
        return group_node
    for child in started:
        step = executed.get(child["id"], {})
        if child.get("phase") in inference.FAILED_OR_ERROR and not _continues_on(
            step, child["phase"]
        ):
            return op.mark_node(group_name, "Failed", f"child '{child['id']}' failed")
    return op.mark_node(group_name, "Succeeded")


def _run_exit_hooks(
    op: Operation,
    started: list[Json],
    executed: dict[str, Json],
    boundary: Json,
    scope: scopes.Scope,
) -> bool:
    """Run the exit hook of every completed step; False while a step or hook is not done.

    As upstream's `executeStepGroup`, a step only gets its hook once it is Succeeded,
    Failed or Error, and the group waits for the hook's node to be fulfilled.
    """
    completed = True
    for child in started:
        if not inference.fulfilled(child):
            completed = False
            continue
        if child.get("phase") not in inference.COMPLETED:
            continue
        step = executed.get(child["id"], {})
        try:
            exit_node = hooks.run_on_exit(
                op,
                hooks.exit_hook(step, op.spec.get("arguments") or {}),
                child,
                boundary_id=boundary["id"],
                kind="steps",
                name=str(step.get("name", "")),
                scope=scope,
            )
        except parallelism.ParallelismReached:
            completed = False
            continue
        if exit_node is not None and not inference.fulfilled(exit_node):
            completed = False
    return completed


def _expand(
    op: Operation,
    resolved: list[Json],
    group_name: str,
    boundary: Json,
    scope: scopes.Scope,
) -> list[Json]:
    """Return the group's steps with loops expanded (`expandStepGroup`).

    A loop without items becomes a Skipped node `Skipped, empty params`.
    """
    expanded: list[Json] = []
    for step in resolved:
        steps = references.expand(step, scope.params)
        if loops.has_loop(step) and not steps:
            child_name = naming.step_name(group_name, step["name"])
            if op.node(child_name) is None:
                node_init.init_skipped(
                    op, child_name, step, boundary, "Skipped", loops.EMPTY_MESSAGE
                )
                op.add_child(group_name, child_name)
        expanded += steps
    return expanded


def _continues_on(step: Json, phase: str) -> bool:
    continue_on = step.get("continueOn") or {}
    return bool(
        continue_on.get("failed") if phase == "Failed" else continue_on.get("error")
    )


def _update_outbound(op: Operation, node: Json, last_group_name: str) -> None:
    """Record the outbound nodes of the last initialized group on the steps node."""
    name = last_group_name.rsplit("[", 1)[0]
    index = int(last_group_name.rsplit("[", 1)[1].rstrip("]"))
    group = None
    while index >= 0 and group is None:
        group = op.node(naming.step_group_name(name, index))
        index -= 1
    if group is None:
        return
    node["outboundNodes"] = [
        out
        for child_id in group.get("children") or []
        for out in scopes.outbound_nodes(op.nodes, child_id)
    ]
