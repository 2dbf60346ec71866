"""We test these aspects of the downtime faults (`runtime/downtime.py`), each against a
healthy reconciliation of the same pod and with the pod changing after the process
started (the canaries' case, where the fault must change nothing):

- downtime-success-noted: a node whose main finished before the process started
  becomes Succeeded with a message (WPC-RECOVERY-001, WPC-RECOVERY-008);
- downtime-deleted-failed: a Running node started before the process, whose pod
  vanished, becomes Failed `pod deleted`, not Error (WPC-RECOVERY-006);
- deleted-while-down-lost: a pod deleted before the process started, held by the
  finalizer, makes its node Error `pod deleted` instead of its containers'
  verdict (WPC-RECOVERY-005).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from reference_impl.controller.faults import Fault
from reference_impl.controller.runtime import downtime
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import terminated

Json = dict[str, Any]
MINUTE = datetime.timedelta(minutes=1)


def restarted(
    hello_world: Json, fault: Fault | None, started: datetime.datetime
) -> Harness:
    """The hello workflow's pod running, then a controller process started at `started`."""
    h = Harness(hello_world, settings=settings(fault=fault))
    h.reconcile()
    h.set_pod("hello", pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    h.process_started = started
    return h


def succeeded(
    hello_world: Json, fault: Fault | None, started: datetime.datetime
) -> Json:
    """The node once main finished at NOW - 5 s (`terminated`'s default finishedAt)."""
    h = restarted(hello_world, fault, started)
    h.succeed("hello")
    h.now = NOW + 2 * MINUTE
    h.reconcile()
    return h.node("hello")


def test_downtime_success_noted_gives_a_node_finished_while_down_a_message(
    hello_world,
):
    healthy = succeeded(hello_world, None, NOW + MINUTE)
    assert (healthy["phase"], "message" in healthy) == ("Succeeded", False)
    broken = succeeded(hello_world, Fault.DOWNTIME_SUCCESS_NOTED, NOW + MINUTE)
    assert (broken["phase"], broken.get("message")) == ("Succeeded", downtime.NOTE)


def test_downtime_success_noted_spares_a_node_finished_under_this_process(
    hello_world,
):
    node = succeeded(hello_world, Fault.DOWNTIME_SUCCESS_NOTED, NOW - MINUTE)
    assert (node["phase"], "message" in node) == ("Succeeded", False)


def vanished(
    hello_world: Json, fault: Fault | None, started: datetime.datetime
) -> Json:
    """The node once its running pod is gone for longer than the recent-start grace."""
    h = restarted(hello_world, fault, started)
    h.pods.clear()
    h.now = NOW + 2 * MINUTE
    h.reconcile()
    return h.node("hello")


@pytest.mark.parametrize(
    ("fault", "started", "phase"),
    [
        (None, NOW + MINUTE, "Error"),
        (Fault.DOWNTIME_DELETED_FAILED, NOW + MINUTE, "Failed"),
        # The pod vanished under a process that saw the node start: no downtime.
        (Fault.DOWNTIME_DELETED_FAILED, NOW - MINUTE, "Error"),
    ],
)
def test_downtime_deleted_failed_fails_a_node_whose_pod_vanished_while_down(
    hello_world, fault, started, phase
):
    node = vanished(hello_world, fault, started)
    assert (node["phase"], node["message"]) == (phase, "pod deleted")


def deleted(hello_world: Json, fault: Fault | None, started: datetime.datetime) -> Json:
    """The node of a pod deleted at NOW (grace 5 s) whose main then exited 3."""
    h = restarted(hello_world, fault, started)
    pod = h.pod_of("hello")
    pod["metadata"]["deletionTimestamp"] = "2026-01-02T03:04:10Z"
    pod["metadata"]["deletionGracePeriodSeconds"] = 5
    h.set_pod(
        "hello",
        pod_status("Failed", main=terminated(3, reason="Error"), wait=terminated(0)),
    )
    h.now = NOW + 2 * MINUTE
    h.reconcile()
    return h.node("hello")


@pytest.mark.parametrize(
    ("fault", "started", "verdict"),
    [
        (None, NOW + MINUTE, ("Failed", "main: Error (exit code 3)")),
        (Fault.DELETED_WHILE_DOWN_LOST, NOW + MINUTE, ("Error", "pod deleted")),
        # Deleted (NOW) after this process started: read as without the fault.
        (
            Fault.DELETED_WHILE_DOWN_LOST,
            NOW - MINUTE,
            ("Failed", "main: Error (exit code 3)"),
        ),
    ],
)
def test_deleted_while_down_lost_takes_a_pod_deleted_while_down_as_gone(
    hello_world, fault, started, verdict
):
    node = deleted(hello_world, fault, started)
    assert (node["phase"], node["message"]) == verdict


def test_a_deletion_counts_from_its_request_not_from_the_end_of_its_grace() -> None:
    pod = {
        "metadata": {
            "deletionTimestamp": "2026-01-02T03:04:10Z",
            "deletionGracePeriodSeconds": 5,
        }
    }
    assert downtime.deleted_before(pod, NOW + datetime.timedelta(seconds=1))
    assert not downtime.deleted_before(pod, NOW)
    assert not downtime.deleted_before({"metadata": {}}, NOW)
