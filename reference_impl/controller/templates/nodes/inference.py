"""Node phase and message inferred from a pod, with Argo's exact strings.

Mirrors `workflow/controller/operator.go` `assessNodeStatus`, `inferFailedReason`,
`getPendingReason` and `podHasContainerNeedingTermination` (contract notes section 3).
Pure functions over pod and node dicts; the caller applies the result.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from reference_impl import common

Json = dict[str, Any]

COMPLETED = frozenset({"Succeeded", "Failed", "Error"})
FAILED_OR_ERROR = frozenset({"Failed", "Error"})
DEFAULT_PROGRESS = "0/1"


@dataclasses.dataclass
class Assessment:
    """What a pod says about its node."""

    node: Json | None
    """The updated node, or None when nothing changed."""
    terminate: bool = False
    """The pod runs but its main container is done: signal the remaining containers."""
    task_result_complete: bool = False
    """The aux container ended abnormally (or was evicted): its task result will never complete."""


def pending_reason(pod: Json) -> str:
    """Return why a pod is Pending: the first waiting container, else `Unschedulable: ...`."""
    status = pod.get("status") or {}
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting")
        if waiting is not None:
            reason, message = waiting.get("reason", ""), waiting.get("message", "")
            return f"{reason}: {message}" if message else reason
    for condition in status.get("conditions") or []:
        if condition.get("reason") == "Unschedulable":
            message = condition.get("message", "")
            return f"Unschedulable: {message}" if message else "Unschedulable"
    return ""


def infer_failed_reason(
    pod: Json, *, supervisor_precedence: bool = True
) -> tuple[str, str]:
    """Return (phase, message) for a Failed pod, in Argo's order of preference.

    `supervisor_precedence=False` is the `main-message-first` fault: the supervisor never
    outranks main, even when main exited with the pre-main sentinel 65.
    """
    status = pod.get("status") or {}
    if status.get("message"):
        return "Failed", status["message"]
    statuses = list(status.get("containerStatuses") or [])
    sentinel = supervisor_precedence and any(
        c.get("name") == common.MAIN
        and _terminated(c) is not None
        and _terminated(c).get("exitCode") == common.EXIT_PRE_MAIN_FAILURE  # type: ignore[union-attr]
        for c in statuses
    )

    def rank(name: str) -> int:
        if name == common.SUPERVISOR:
            return 0 if sentinel else 2
        if name == common.MAIN:
            return 1
        return 2 if name == common.WAIT else 3

    ordered = [
        *(status.get("initContainerStatuses") or []),
        *sorted(statuses, key=lambda c: rank(c["name"])),
    ]
    if not ordered:
        meta = pod.get("metadata") or {}
        return (
            "Failed",
            f"can't find failed message for pod {meta.get('name')} namespace {meta.get('namespace')}",
        )
    main_ok = aux_ok = False
    for container in ordered:
        name, state = container["name"], container.get("state") or {}
        if state.get("waiting") is not None:
            waiting = state["waiting"]
            return "Error", (
                f"Pod failed before {name} container starts due to "
                f"{waiting.get('reason', '')}: {waiting.get('message', '')}"
            )
        terminated = state.get("terminated")
        if terminated is None:
            continue
        code = int(terminated.get("exitCode", 0))
        if code == 0:
            if name == common.MAIN:
                main_ok = True
            elif name in (common.WAIT, common.SUPERVISOR):
                aux_ok = True
            continue
        message = container_message(name, terminated)
        if name == common.MAIN:
            return "Failed", message
        if name in (common.INIT, common.WAIT, common.SUPERVISOR):
            return "Error", message
        if code not in (137, 143):
            return "Failed", message
    if main_ok and aux_ok:
        return "Succeeded", ""
    if main_ok:
        return "Failed", "pod failed: wait container did not complete successfully"
    if aux_ok:
        return "Failed", "pod failed: main container did not complete successfully"
    return (
        "Failed",
        "pod failed: neither main nor wait container completed successfully",
    )


def container_message(name: str, terminated: Json) -> str:
    """`<container>: <Reason> (exit code N)[: <termination message>]`, as a node says it."""
    code = int(terminated.get("exitCode", 0))
    message = f"{terminated.get('reason', '')} (exit code {code})"
    if terminated.get("message"):
        message = f"{message}: {terminated['message']}"
    return f"{name}: {message}"


def needs_termination(pod: Json) -> bool:
    """Return whether a Running pod's main is done (non-zero, or every main exited)."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    mains = [c for c in statuses if c.get("name") == common.MAIN]
    if any(
        (_terminated(c) or {}).get("exitCode", 0) != 0 for c in mains if _terminated(c)
    ):
        return True
    return all(_terminated(c) is not None for c in mains)


def assess(
    pod: Json,
    old: Json,
    *,
    template: Json | None,
    now: str,
    supervisor_precedence: bool = True,
    wait_for_outputs: bool = True,
) -> Assessment:
    """Return the node as this pod shows it (`assessNodeStatus`); `now` is an RFC 3339 time.

    `wait_for_outputs=False` is the `outputs-after-success` fault: a succeeded pod
    makes its node `Succeeded` even while the declared outputs are still missing.
    """
    updated = copy.deepcopy(old)
    status = pod.get("status") or {}
    phase = status.get("phase")
    result = Assessment(node=None)
    if phase == "Pending":
        updated["phase"], updated["message"] = "Pending", pending_reason(pod)
    elif phase == "Succeeded":
        updated["phase"] = "Succeeded"
    elif phase == "Failed":
        updated["phase"], updated["message"] = infer_failed_reason(
            pod, supervisor_precedence=supervisor_precedence
        )
    elif phase == "Running":
        updated["phase"] = "Running"
        result.terminate = needs_termination(pod)
    else:
        updated["phase"] = "Error"
        updated["message"] = (
            f"Unexpected pod phase for {pod['metadata']['name']}: {phase}"
        )
    if not updated.get("message"):
        updated.pop("message", None)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        updated["hostNodeName"] = node_name
    if not _valid_progress(updated.get("progress")):
        updated["progress"] = DEFAULT_PROGRESS
    exit_code = main_exit_code(pod)
    if exit_code is not None:
        updated.setdefault("outputs", {})["exitCode"] = str(exit_code)
    aux_cleaned_up = True
    for container in status.get("containerStatuses") or []:
        if container.get("name") not in (common.WAIT, common.SUPERVISOR):
            continue
        aux_cleaned_up = False
        state = container.get("state") or {}
        if (
            state.get("running") is not None
            and updated["phase"] in COMPLETED
            and phase != "Failed"
        ):
            updated["phase"] = old.get("phase")  # outputs are still being saved
        elif (
            state.get("terminated") is not None
            and state["terminated"].get("exitCode", 0) != 0
        ):
            result.task_result_complete = True
    if phase == "Failed" and status.get("reason") == "Evicted" and aux_cleaned_up:
        result.task_result_complete = True
    if (
        wait_for_outputs
        and updated["phase"] == "Succeeded"
        and template is not None
        and _outputs_missing(template, updated)
    ):
        updated["phase"] = old.get("phase")
    if (
        old.get("phase") == "Pending"
        and updated["phase"] not in ("Pending", "Failed", "Error")
        and old.get("message") == updated.get("message")
    ):
        updated.pop("message", None)
    if fulfilled(updated) and not updated.get("finishedAt"):
        updated["finishedAt"] = latest_finished_at(pod) or now
    if updated != old:
        result.node = updated
    return result


def main_exit_code(pod: Json) -> int | None:
    """Return main's exit code once it has terminated."""
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        terminated = _terminated(container)
        if container.get("name") == common.MAIN and terminated is not None:
            return int(terminated.get("exitCode", 0))
    return None


def latest_finished_at(pod: Json) -> str | None:
    """Return the latest container finish time (None when a container still runs)."""
    status = pod.get("status") or {}
    latest: str | None = None
    for container in [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]:
        state = container.get("state") or {}
        if state.get("running") is not None:
            return None
        finished = (state.get("terminated") or {}).get("finishedAt")
        if finished and (latest is None or finished > latest):
            latest = finished
    return latest


def fulfilled(node: Json) -> bool:
    """Return Argo's `NodeStatus.Fulfilled`: completed and task result synced, or skipped."""
    phase = node.get("phase")
    if phase in ("Skipped", "Omitted"):
        return True
    return phase in COMPLETED and node.get("taskResultSynced", True) is not False


def _terminated(container: Json) -> Json | None:
    terminated: Json | None = (container.get("state") or {}).get("terminated")
    return terminated


def _valid_progress(value: Any) -> bool:
    if not isinstance(value, str) or "/" not in value:
        return False
    done, total = value.split("/", 1)
    return (
        done.isdigit()
        and total.isdigit()
        and int(total) > 0
        and int(done) <= int(total)
    )


def _outputs_missing(template: Json, node: Json) -> bool:
    declared = template.get("outputs") or {}
    outputs = node.get("outputs") or {}
    if declared.get("parameters") and not outputs.get("parameters"):
        return True
    required = [a for a in declared.get("artifacts") or [] if not a.get("optional")]
    if required and not outputs.get("artifacts"):
        return True
    return bool(declared.get("result") is not None and outputs.get("result") is None)
