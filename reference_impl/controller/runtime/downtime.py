"""Faults about what a restarted controller finds: negative controls of WPC-RECOVERY.

Each fault here (see `faults.py`) changes how this process reports a node whose
pod changed while no controller ran, judged by the moment this process started
(`Operation.process_started`). Nodes and pods that change while this process runs
are reported as without the fault, so the conformance scenarios that never stop
the controller are the faults' canaries.
"""

from __future__ import annotations

import datetime
from typing import Any

from reference_impl import common
from reference_impl.controller import faults
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import timestamps
from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]

NOTE = "completed while no controller ran"
"""The message `downtime-success-noted` gives a Succeeded node (any would do)."""


def _before(text: object, moment: datetime.datetime | None) -> bool:
    parsed = timestamps.parse_time(str(text)) if text else None
    return moment is not None and parsed is not None and parsed < moment


def main_finished_before(pod: Json, moment: datetime.datetime | None) -> bool:
    """Whether the pod's `main` container terminated before `moment`."""
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == common.MAIN:
            finished = ((status.get("state") or {}).get("terminated") or {}).get(
                "finishedAt"
            )
            return _before(finished, moment)
    return False


def deleted_before(pod: Json, moment: datetime.datetime | None) -> bool:
    """Whether the pod's deletion was asked for before `moment`.

    `deletionTimestamp` is when the grace period ends, so the request was that
    many seconds (`deletionGracePeriodSeconds`) earlier.
    """
    meta = pod.get("metadata") or {}
    ends = timestamps.parse_time(meta.get("deletionTimestamp"))
    if ends is None or moment is None:
        return False
    grace = float(meta.get("deletionGracePeriodSeconds") or 0)
    return ends - datetime.timedelta(seconds=grace) < moment


def note_success(op: Operation, pod: Json, new: Json) -> None:
    """`downtime-success-noted`: a node that succeeded during the downtime gets a message."""
    if (
        op.settings.has_fault(Fault.DOWNTIME_SUCCESS_NOTED)
        and new.get("phase") == "Succeeded"
        and main_finished_before(pod, op.process_started)
    ):
        new["message"] = NOTE


def taken_as_gone(op: Operation, pod: Json) -> bool:
    """`deleted-while-down-lost`: a pod deleted during the downtime counts as gone."""
    return op.settings.has_fault(Fault.DELETED_WHILE_DOWN_LOST) and deleted_before(
        pod, op.process_started
    )


def vanished_phase(op: Operation, node: Json) -> str:
    """The phase of a Running node whose pod vanished: `Error`, unless the fault.

    Under `downtime-deleted-failed`, `Failed` for a node that started before this
    process did: its pod vanished while no controller ran.
    """
    if op.settings.has_fault(Fault.DOWNTIME_DELETED_FAILED) and _before(
        node.get("startedAt"), op.process_started
    ):
        return "Failed"
    return "Error"


def reopened(workflow: Json, *, started_at: str, seen: dict[str, str]) -> Json | None:
    """`reopen-after-restart`: the version to write of a completed workflow, else None.

    Only for a workflow created before this process started (`started_at`): the
    first pass that sees it completed writes it back as `Running`, the next one
    restores the phase it had (kept in `seen`, uid -> phase); then it is left alone.
    """
    meta, status = workflow["metadata"], workflow.get("status") or {}
    uid, phase = str(meta.get("uid") or ""), str(status.get("phase") or "")
    if not faults.predates(workflow, started_at):
        return None
    if uid not in seen:
        seen[uid] = phase
        phase = "Running"
    elif phase == "Running" and seen[uid] != "Running":
        phase = seen[uid]
    else:
        return None
    return {**workflow, "status": {**status, "phase": phase}}
