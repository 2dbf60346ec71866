"""Reconcile one workflow: Argo's `operate`, step by step.

1. A new workflow is validated (`invalid spec: ...` fails it) and marked Running.
2. Task results are merged into their nodes (outputs, `taskResultSynced`).
3. Every pod of the workflow updates its node (phase, message, exit code); pods of nodes
   that must stop (shutdown, deadline) are terminated; nodes whose pod vanished become
   `pod deleted`; nodes without pods fail on shutdown or deadline.
4. The entrypoint is executed, creating nodes and pods that are due.
5. Once the root node is done, the onExit handler runs, then the workflow's phase is set.

The caller persists `op.wf` and then runs `after_persist` for the pod clean-up that must
only happen once the new state is stored ("never label pods as completed until we
successfully updated the workflow").
"""

from __future__ import annotations

import logging
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import durations
from reference_impl.controller.formats import naming
from reference_impl.controller.formats import timestamps
from reference_impl.controller.pods import podfields
from reference_impl.controller.runtime import downtime
from reference_impl.controller.templates.checks import validation
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.nodes import hooks
from reference_impl.controller.templates.nodes import inference
from reference_impl.controller.templates.nodes import parallelism
from reference_impl.controller.templates.nodes import progress
from reference_impl.controller.templates.nodes import stopped_sidecars
from reference_impl.controller.templates.nodes import suspends
from reference_impl.controller.templates.operation import Operation
from reference_impl.controller.templates.operation import pod_node_id

Json = dict[str, Any]
logger = logging.getLogger(__name__)

_WORKFLOW_PHASE = {
    "Pending": "Pending",
    "Running": "Running",
    "Succeeded": "Succeeded",
    "Skipped": "Succeeded",
    "Omitted": "Succeeded",
    "Failed": "Failed",
    "Error": "Error",
}


def reconcile(op: Operation) -> None:
    """Advance the workflow held by `op` as far as the observed state allows."""
    if op.wf["metadata"].get("labels", {}).get(common.LABEL_COMPLETED) == "true":
        return
    reconcile_task_results(op)
    if _not_started(op):
        try:
            validation.validate(_as_validated(op))
        except errors.ValidationError as err:
            logger.info("%s Workflow is invalid: %s", op.prefix, err)
            mark_workflow_phase(op, "Failed", f"invalid spec: {err}")
            return
        mark_workflow_phase(op, "Running", "")
        op.workflow_deadline = op.compute_workflow_deadline()
        if op.workflow_deadline is not None:
            op.requeue((op.workflow_deadline - op.now).total_seconds())
    else:
        if not reconcile_pods(op):
            op.requeue(0.0)
            return
        fail_nodes_without_pods(op)
        if op.workflow_deadline is not None and not op.deadline_exceeded():
            op.requeue((op.workflow_deadline - op.now).total_seconds() + 1)
    try:
        root = op.execute_template(
            op.name,
            str(op.spec.get("entrypoint", "")),
            op.spec.get("arguments") or {},
            ExecuteOptions(),
        )
    except parallelism.ParallelismReached:
        # A normal back-pressure, not an error: try again later (operator.go `operate`).
        op.requeue(op.settings.requeue_seconds)
        return
    except TemplateError as err:
        mark_workflow_phase(op, "Error", f"error in entry template execution: {err}")
        return
    finally:
        progress.update(op.status)
    if not inference.fulfilled(root):
        op.requeue(op.settings.requeue_seconds)
        return
    exit_node = _run_exit_handler(op)
    if exit_node is False:
        return
    _complete(op, root, exit_node if isinstance(exit_node, dict) else None)
    progress.update(op.status)


def _not_started(op: Operation) -> bool:
    """Whether the workflow was never started: no phase, or `Pending` without nodes.

    `Pending` is what the controller-wide `parallelism` limit writes on a workflow it
    holds back (`runtime/throttling.py`); once admitted, it starts like a new one.
    """
    phase = op.status.get("phase")
    return phase in (None, "", "Unknown") or (phase == "Pending" and not op.nodes)


def _as_validated(op: Operation) -> Json:
    """The workflow validation sees: under `sidecar-main-dropped`, without `main` sidecars."""
    templates = op.spec.get("templates")
    if not op.settings.has_fault(Fault.SIDECAR_MAIN_DROPPED) or not isinstance(
        templates, list
    ):
        return op.wf
    dropped = [
        podfields.without_main_sidecars(t) if isinstance(t, dict) else t
        for t in templates
    ]
    return {**op.wf, "spec": {**op.spec, "templates": dropped}}


def _run_exit_handler(op: Operation) -> Json | bool | None:
    """Run the workflow's exit handler; False while it is still running, else its node.

    `spec.onExit`, else `spec.hooks.exit` (with the workflow's arguments unless it has
    its own), as upstream's `WorkflowSpec.GetExitHook`.
    """
    hook = hooks.exit_hook(op.spec, op.spec.get("arguments") or {})
    if hook is None:
        return None
    name = naming.on_exit_name(op.name)
    if op.node(name) is None and not op.should_execute(True):
        return None
    try:
        node = op.execute_template(
            name,
            str(hook.get("template", "")),
            hook.get("arguments") or {},
            ExecuteOptions(on_exit=True, hooked=True),
        )
    except parallelism.ParallelismReached:
        op.requeue(op.settings.requeue_seconds)
        return False
    except TemplateError as err:
        mark_workflow_phase(op, "Error", f"error in exit template execution : {err}")
        return False
    if not inference.fulfilled(node):
        op.requeue(op.settings.requeue_seconds)
        return False
    return node


def _complete(op: Operation, root: Json, exit_node: Json | None) -> None:
    phase = _WORKFLOW_PHASE.get(str(root.get("phase")), "Error")
    message = str(root.get("message", ""))
    if root.get("phase") in inference.FAILED_OR_ERROR and op.shutdown:
        message = f"Stopped with strategy '{op.shutdown}'"
    if (
        phase == "Succeeded"
        and exit_node is not None
        and exit_node.get("phase") in inference.FAILED_OR_ERROR
    ):
        phase, message = str(exit_node["phase"]), str(exit_node.get("message", ""))
    elif phase == "Succeeded":
        message = ""
    mark_workflow_phase(op, phase, message)


def mark_workflow_phase(op: Operation, phase: str, message: str) -> None:
    """Set the workflow's phase, labels, timestamps and conditions (`markWorkflowPhase`)."""
    completed = phase in inference.COMPLETED
    if completed and any(n.get("taskResultSynced") is False for n in op.nodes.values()):
        op.requeue(op.settings.requeue_seconds)
        return
    labels = op.wf["metadata"].setdefault("labels", {})
    if op.status.get("phase") != phase:
        logger.info(
            "%s Workflow phase changed from %s to %s.",
            op.prefix,
            op.status.get("phase") or "''",
            phase,
        )
        op.status["phase"] = phase
        labels[common.LABEL_PHASE] = phase
        labels.setdefault(common.LABEL_COMPLETED, "false")
    if not op.status.get("startedAt") and phase != "Pending":
        op.status["startedAt"] = op.now_text()
    if message:
        op.status["message"] = message
    else:
        op.status.pop("message", None)
    root = op.nodes.get(op.name)
    if phase == "Error" and root is not None and root.get("phase") == "Running":
        root["phase"], root["message"] = "Error", "Workflow operation error"
    if completed:
        op.status["finishedAt"] = op.now_text()
        labels[common.LABEL_COMPLETED] = "true"
        _upsert_condition(op.status, "Completed", "True")


def _upsert_condition(status: Json, kind: str, value: str) -> None:
    conditions = status.setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == kind:
            condition["status"] = value
            return
    conditions.append({"type": kind, "status": value})


def reconcile_task_results(op: Operation) -> None:
    """Merge each task result into its node (`taskResultReconciliation`)."""
    for result in op.task_results:
        node = op.nodes.get(result["metadata"]["name"])
        if node is None:
            continue
        if _merged_late(op, node):
            continue
        label = (result["metadata"].get("labels") or {}).get(
            common.LABEL_REPORT_OUTPUTS_COMPLETED
        )
        if label in ("true", "false") and "taskResultSynced" in node:
            node["taskResultSynced"] = label == "true"
        if label == "false" and node.get("phase") in inference.COMPLETED:
            ago = timestamps.seconds_since(node.get("finishedAt"), op.now) or 0.0
            pod_gone = node["id"] not in op.pods_by_node_id
            if (pod_gone and ago <= op.settings.recently_deleted_pod_seconds) or (
                ago <= op.settings.task_result_timeout_seconds
            ):
                op.requeue(op.settings.requeue_seconds)
                continue
            logger.info(
                "%s Task result of node %s forced complete: its pod is long gone.",
                op.prefix,
                node["name"],
            )
            node["taskResultSynced"] = True
        outputs = {
            k: v
            for k, v in (result.get("outputs") or {}).items()
            if v not in (None, [], "")
        }
        if outputs:
            merged = {**outputs}
            exit_code = (node.get("outputs") or {}).get("exitCode")
            if merged.get("exitCode") is None and exit_code is not None:
                merged["exitCode"] = exit_code
            node["outputs"] = merged
        if progress.parse(result.get("progress")) is not None:
            node["progress"] = result["progress"]


def _merged_late(op: Operation, node: Json) -> bool:
    """Whether the `outputs-after-success` fault defers this task result.

    Under it, a node not yet completed counts its task result as unsynced and gets
    no outputs from it; the pass after the node completed merges them. With the
    guards of `reconcile_pods` lifted too, the node is written `Succeeded` first.
    """
    if not op.settings.has_fault(Fault.OUTPUTS_AFTER_SUCCESS):
        return False
    if node.get("phase") in inference.COMPLETED:
        return False
    if "taskResultSynced" in node:
        node["taskResultSynced"] = False
    return True


_REPORTED_AS_ERROR: dict[Fault | None, str] = {
    Fault.OOM_REPORTED_AS_ERROR: f"{common.MAIN}: OOMKilled",
    Fault.START_ERROR_AS_ERROR: f"{common.MAIN}: StartError",
}
"""The faults that make a node `Error`, not `Failed`, when its message starts so."""
_AUX_MESSAGES = (f"{common.WAIT}: ", f"{common.SUPERVISOR}: ")
"""How a node's message starts when its aux container's failure decided it."""


def _misreport(op: Operation, new: Json) -> None:
    """Apply this process's deliberate fault, if any, to a node assessed from its pod.

    The chaos negative controls: `oom-reported-as-error` and `start-error-as-error`
    make their own main failure `Error`, not `Failed`; `aux-failure-ignored` makes
    a node decided by a failed aux container after main exited 0 `Succeeded`, not
    `Error`. Without one of these faults the node is left as assessed.
    """
    message = str(new.get("message", ""))
    misreported = _REPORTED_AS_ERROR.get(op.settings.fault)
    if misreported is not None and message.startswith(misreported):
        new["phase"] = "Error"
    if (
        op.settings.has_fault(Fault.AUX_FAILURE_IGNORED)
        and new.get("phase") == "Error"
        and message.startswith(_AUX_MESSAGES)
        and (new.get("outputs") or {}).get("exitCode") == "0"
    ):
        new["phase"] = "Succeeded"
        new.pop("message", None)


def reconcile_pods(op: Operation) -> bool:
    """Update nodes from their pods; False when a succeeded node still awaits its task result."""
    incomplete = False
    running = False
    supervisor_precedence = not op.settings.has_fault(Fault.MAIN_MESSAGE_FIRST)
    early = op.settings.has_fault(Fault.OUTPUTS_AFTER_SUCCESS)
    for pod in op.pods:
        node_id = pod_node_id(pod, op.name)
        node = op.nodes.get(node_id)
        if node is None or inference.fulfilled(node):
            # A fulfilled node keeps its verdict (e.g. the shutdown message) even while its
            # pod is still being terminated; the pod is labelled completed after persist.
            continue
        if downtime.taken_as_gone(op, pod):
            op.mark_node(node["name"], "Error", "pod deleted")  # fault
            continue
        template = op.templates.get(node.get("templateName", ""))
        assessment = inference.assess(
            pod,
            node,
            template=template,
            now=op.now_text(),
            supervisor_precedence=supervisor_precedence,
            wait_for_outputs=not early,
        )
        if assessment.terminate:
            op.effects.terminate_pod(op.namespace, pod["metadata"]["name"])
        new = assessment.node
        if new is not None:
            _misreport(op, new)
            stopped_sidecars.misreport(op.settings.fault, pod, new)
            downtime.note_success(op, pod, new)
            if (
                new.get("phase") == "Succeeded"
                and node.get("taskResultSynced") is False
                and not early
            ):
                incomplete = True
            else:
                op.nodes[node_id] = node = new
                _log_node_change(op, new)
                op.export_outputs(new.get("outputs"))
        if assessment.task_result_complete and "taskResultSynced" in node:
            node["taskResultSynced"] = True
        running = running or node.get("phase") == "Running"
        _apply_execution_control(op, pod, node)
    if incomplete:
        return False
    _upsert_condition(op.status, "PodRunning", "True" if running else "False")
    for node in list(op.nodes.values()):
        if (
            node.get("type") != "Pod"
            or inference.fulfilled(node)
            or not node.get("startedAt")
        ):
            continue
        if node["id"] in op.pods_by_node_id:
            continue
        if node.get("phase") == "Pending":
            if not _errors_pending(op, node):
                continue  # a Pending node's pod is made again (WPC-STATUS-008)
        else:
            ago = timestamps.seconds_since(node.get("startedAt"), op.now) or 0.0
            if ago <= op.settings.recently_started_pod_seconds:
                op.requeue(op.settings.recently_started_pod_seconds - ago)
                continue
        logger.info("%s Pod of node %s is missing.", op.prefix, node["name"])
        op.mark_node(node["name"], downtime.vanished_phase(op, node), "pod deleted")
    return True


def _errors_pending(op: Operation, node: Json) -> bool:
    """Whether the `pending-deleted-errors` fault errors this pod-less Pending node.

    Only a node whose pod was seen on a host, and at once: this pass would
    otherwise make the pod again. A node whose pod was never seen (just
    created, not yet in the cache) is spared.
    """
    return op.settings.has_fault(Fault.PENDING_DELETED_ERRORS) and bool(
        node.get("hostNodeName")
    )


def _log_node_change(op: Operation, node: Json) -> None:
    if inference.fulfilled(node):
        logger.info(
            "%s Node %s is %s: %s",
            op.prefix,
            node["name"],
            node.get("phase"),
            node.get("message", ""),
        )


def _apply_execution_control(op: Operation, pod: Json, node: Json) -> None:
    """Terminate a pod that must stop: shutdown or the workflow deadline (`applyExecutionControl`)."""
    if inference.fulfilled(node) or (pod.get("status") or {}).get("phase") not in (
        "Pending",
        "Running",
    ):
        return
    on_exit = common.LABEL_ON_EXIT in (pod["metadata"].get("labels") or {})
    if op.shutdown and not op.should_execute(on_exit):
        message = f"workflow shutdown with strategy:  {op.shutdown}"
    elif op.deadline_exceeded() and not on_exit:
        message = "Step exceeded its deadline"
    else:
        return
    logger.info(
        "%s Terminating pod %s: %s", op.prefix, pod["metadata"]["name"], message
    )
    op.effects.terminate_pod(op.namespace, pod["metadata"]["name"])
    op.mark_node(node["name"], "Failed", message)


def fail_nodes_without_pods(op: Operation) -> None:
    """Fail nodes that cannot get a pod any more (`failNodesWithoutCreatedPodsAfterDeadlineOrShutdown`)."""
    for node in list(op.nodes.values()):
        if inference.fulfilled(node):
            continue
        exit_handler = op.part_of_exit_handler(node)
        if (
            op.shutdown
            and not op.should_execute(exit_handler)
            and suspends.is_active(node)
        ):
            op.mark_node(
                node["name"], "Failed", f"Stopped with strategy '{op.shutdown}'"
            )
            continue
        if (
            op.shutdown
            and not op.should_execute(exit_handler)
            and node.get("type") == "Retry"
        ):
            children = [op.nodes.get(c) for c in node.get("children") or []]
            if all(c is not None and inference.fulfilled(c) for c in children):
                op.mark_node(
                    node["name"], "Failed", f"Stopped with strategy '{op.shutdown}'"
                )
                continue
        if (
            op.deadline_exceeded()
            and not exit_handler
            and (node.get("phase") == "Pending" or suspends.is_active(node))
        ):
            op.mark_node(node["name"], "Failed", "Step exceeded its deadline")


def after_persist(
    *, workflow: Json, pods: list[Json], config_delay: float
) -> list[tuple[decisions.Action, Json, float]]:
    """Return the clean-up for pods of fulfilled nodes, once the workflow update is stored."""
    spec, status = workflow.get("spec") or {}, workflow.get("status") or {}
    pod_gc = spec.get("podGC")
    strategy = str((pod_gc or {}).get("strategy") or "")
    delay = config_delay
    if pod_gc and pod_gc.get("deleteDelayDuration"):
        delay = durations.parse(str(pod_gc["deleteDelayDuration"]))
    name = workflow["metadata"]["name"]
    nodes = status.get("nodes") or {}
    actions = []
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        if "workflows.argoproj.io/component" in labels:
            continue
        node = nodes.get(pod_node_id(pod, name))
        if node is None or not inference.fulfilled(node):
            continue
        matches = pod_gc is not None and decisions.selector_matches(
            pod_gc.get("labelSelector"), labels
        )
        action = decisions.completion_action(
            pod=pod,
            strategy=strategy,
            selector_matches=matches,
            workflow_phase=str(status.get("phase")),
        )
        if action is not None:
            actions.append(
                (action, pod, delay if action is decisions.Action.DELETE else 0.0)
            )
    return actions
