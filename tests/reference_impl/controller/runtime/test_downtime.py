"""We test these aspects of the downtime faults (`runtime/downtime.py`), each against a
healthy reconciliation of the same pod and with the pod changing after the process
started (the canaries' case, where the fault must change nothing):

- downtime-success-noted: a node whose main finished before the process started
  becomes Succeeded with a message (WPC-RECOVERY-001, WPC-RECOVERY-008);
- downtime-deleted-failed: a Running node started before the process, whose pod
  vanished, becomes Failed `pod deleted`, not Error (WPC-RECOVERY-006);
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
