"""`parallelism` (workflow and template) and a template's `failFast`: when a node may start.

Mirrors upstream's `checkParallelism` (`workflow/controller/operator.go`) with the counters
of `workflow/controller/node_counters.go`. Every template execution is checked:
- `spec.parallelism` caps the workflow's active pods (Pending or Running pod nodes whose pod
  exists); at the cap no template runs this pass, running ones included;
- a steps or DAG template's `parallelism` caps the active pods directly inside it, checked
  when the template itself is executed, and its active children (pod, steps and DAG nodes),
  checked before each child that has not started;
- a template's `failFast: true` stops starting children once one failed, and fails the
  template (and its last step group) with upstream's message once none is active.
A refused execution raises `ParallelismReached`; the caller tries again on a later pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.faults import Fault
from reference_impl.controller.templates.execution import template_type

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
FAIL_FAST_MESSAGE = "template has failed or errored children and failFast enabled"
_ACTIVE = ("Pending", "Running")
_COUNTED_TYPES = ("Pod", "Steps", "DAG")


class ParallelismReached(errors.WorkflowError):
    """A limit keeps the template from running now (upstream's `ErrParallelismReached`)."""

    def __init__(self, node: Json | None) -> None:
        super().__init__("Max parallelism reached")
        self.node = node
        """The node as it stands (None when it was not created)."""


def active_pods(op: Operation, boundary_id: str = "") -> int:
    """Return the Pending or Running pod nodes (in a boundary) whose pod exists."""
    return sum(
        1
        for n in op.nodes.values()
        if n.get("type") == "Pod"
        and (not boundary_id or n.get("boundaryID") == boundary_id)
        and n.get("phase") in _ACTIVE
        and n["id"] in op.pods_by_node_id
    )


def _children(op: Operation, boundary_id: str, phases: tuple[str, ...]) -> int:
    return sum(
        1
        for n in op.nodes.values()
        if n.get("boundaryID") == boundary_id
        and n.get("type") in _COUNTED_TYPES
        and n.get("phase") in phases
    )


def _limit(template: Json | None) -> int:
    value = (template or {}).get("parallelism")
    return int(value) if value is not None and int(value) > 0 else 0


def check(op: Operation, template: Json, node: Json | None, boundary_id: str) -> None:
    """Raise ParallelismReached when a limit keeps `template` from running as `node` now."""
    limit = op.spec.get("parallelism")
    if limit is not None and active_pods(op) >= int(limit):
        raise ParallelismReached(node)
    if node is not None and template_type(template) in ("steps", "dag"):
        _fail_fast(op, template, node["id"], node)
        if _limit(template) and active_pods(op, node["id"]) >= _limit(template):
            raise ParallelismReached(node)
    if boundary_id and (node is None or node.get("phase") not in _ACTIVE):
        boundary = op.nodes.get(boundary_id)
        if boundary is None:
            return
        boundary_template = op.templates.get(str(boundary.get("templateName", "")))
        _fail_fast(op, boundary_template, boundary_id, node)
        if _limit(boundary_template) and _children(op, boundary_id, _ACTIVE) >= _limit(
            boundary_template
        ):
            raise ParallelismReached(node)


def _fail_fast(
    op: Operation, template: Json | None, boundary_id: str, node: Json | None
) -> None:
    if not (template or {}).get("failFast") or not _children(
        op, boundary_id, ("Failed", "Error")
    ):
        return
    if active_pods(op, boundary_id) == 0 or op.settings.has_fault(
        Fault.FAIL_FAST_AT_ONCE
    ):
        boundary = op.nodes[boundary_id]
        if template_type(template or {}) == "steps":
            group = _last_of_type(op, boundary_id, "StepGroup")
            if group is not None:
                op.mark_node(group["name"], "Failed", FAIL_FAST_MESSAGE)
        op.mark_node(boundary["name"], "Failed", FAIL_FAST_MESSAGE)
    raise ParallelismReached(node)


def _last_of_type(op: Operation, root_id: str, node_type: str) -> Json | None:
    """Return the last node of a type in a depth-first walk (`findLeafNodeWithType`)."""
    found: Json | None = None
    stack = [root_id]
    while stack:
        node = op.nodes.get(stack.pop())
        if node is None:
            continue
        if node.get("type") == node_type:
            found = node
        stack.extend(reversed(node.get("children") or []))
    return found
