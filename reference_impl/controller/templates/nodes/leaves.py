"""Container and script nodes: one pod per node (Argo's `executeContainer`/`executeScript`)."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.pods import podbuilding
from reference_impl.controller.pods import retryhosts
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.nodes import timeouts

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
logger = logging.getLogger(__name__)


def execute(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Ensure the node exists and, once, create its pod; return the node.

    Raises TemplateError (after marking the node Error) when the pod cannot be built or
    created, as Argo returns the error to the caller.
    """
    node = op.template_node(
        node_name, template, opts, node_type="Pod", phase="Pending", executable=True
    )
    if node.get("phase") != "Pending" or op.node_id(node_name) in op.pods_by_node_id:
        return node
    if not op.should_execute(opts.on_exit):
        return op.mark_node(
            node_name, "Failed", f"workflow shutdown with strategy: {op.shutdown}"
        )
    try:
        template_deadline = timeouts.deadline(template, node)
    except errors.WorkflowError as err:
        op.mark_node(node_name, "Error", str(err))
        raise TemplateError(str(err)) from err
    request = podbuilding.PodRequest(
        workflow=op.wf,
        node_name=node_name,
        template=template,
        now=op.now,
        global_params=op.global_params(),
        include_script_output=_include_script_output(op, node),
        on_exit=opts.on_exit,
        workflow_deadline=op.workflow_deadline,
        execution_deadline=opts.execution_deadline,
        template_deadline=template_deadline,
        avoid_hosts=tuple(
            retryhosts.avoided_hosts(op.nodes, node["id"], op.templates, template)
        ),
    )
    try:
        pod = podbuilding.build_pod(
            request, config=op.config, settings=op.settings, initless=op.initless
        )
        if pod is None:
            return node
        op.effects.create_pod(pod)
    except errors.ApiError as err:
        if (
            err.transient
        ):  # e.g. a full quota: stay Pending and try again (`requeueIfTransientErr`)
            op.requeue(op.settings.requeue_seconds)
            return op.mark_node(node_name, "Pending", err.reason)
        op.mark_node(node_name, "Error", err.reason)
        raise TemplateError(err.reason) from err
    except errors.PodBuildError as err:
        op.mark_node(node_name, "Error", str(err))
        raise TemplateError(str(err)) from err
    logger.info(
        "%s Created pod %s for node %s in the %s layout.",
        op.prefix,
        pod["metadata"]["name"],
        node_name,
        "initless" if op.initless else "legacy",
    )
    op.pods_by_node_id[node["id"]] = pod
    return node


def _include_script_output(op: Operation, node: Json) -> bool:
    """Return whether the caller references this node's `outputs.result` (`includeScriptOutput`)."""
    boundary = op.nodes.get(node.get("boundaryID", ""))
    if boundary is None:
        return False
    parent = op.templates.get(boundary.get("templateName", ""))
    if parent is None:
        return False
    name = _step_or_task_name(node["name"])
    kind = "tasks" if parent.get("dag") is not None else "steps"
    text = repr(parent)
    return bool(
        re.search(rf"{kind}\.{re.escape(name)}\.outputs\.result", text)
        or re.search(rf"{kind}\[['\"]{re.escape(name)}['\"]\]\.outputs\.result", text)
    )


def _step_or_task_name(node_name: str) -> str:
    """Return the step or task name inside a node name (`wf[0].gen(1)` gives `gen`)."""
    name = re.sub(r"(\([^()]*\)|\[[^\[\]]*\])+$", "", node_name)
    return name.rsplit(".", 1)[-1]
