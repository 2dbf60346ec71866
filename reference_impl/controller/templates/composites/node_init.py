"""How a steps or DAG template creates its nodes: its own, its children, Skipped ones.

Steps and DAGs start their node the same way (Running at once, inputs not recorded,
as upstream's steps and DAG nodes lack them), run a step's or task's template with its
own arguments, and give a child that never runs (a false `when`, an empty loop, an
unresolvable reference) the same Skipped node; one place for the three keeps the two
template kinds from drifting apart. What a child's failure means stays with each kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import Json

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation


def start(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions, node_type: str
) -> Json:
    """Return the template's Running node of `node_type`, initialized on first sight."""
    return op.template_node(
        node_name,
        template,
        opts,
        node_type=node_type,
        phase="Running",
        with_inputs=False,
    )


def execute_child(
    op: Operation, name: str, child: Json, child_opts: ExecuteOptions
) -> None:
    """Execute a step's or task's template as node `name`, with the child's arguments."""
    op.execute_template(
        name, child.get("template", ""), child.get("arguments") or {}, child_opts
    )


def init_skipped(
    op: Operation, name: str, child: Json, boundary: Json, phase: str, message: str
) -> None:
    """Initialize the Skipped node `name` of a step or task `child` inside `boundary`."""
    op.init_node(
        name,
        node_type="Skipped",
        template_name=str(child.get("template", "")),
        boundary_id=boundary["id"],
        phase=phase,
        message=message,
    )
