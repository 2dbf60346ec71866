"""We test these aspects of `samples.measure`: every milestone and phase from
synthetic observations (watch arrivals on the boot clock, whole-second API
timestamps, the user command's markers) in both layouts, with the handshake
only where a status marker exists; the later of the sandbox and Initialized
conditions ending the "sandbox and image volume ready" phase; the pod node
found in the workflow's status; and ClockError when the pod's boot clock is
not the host's.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.errors import ClockError
from conformance.errors import MarkerError
from wpc.bench import samples
from wpc.bench import workloads

BOOT_EPOCH = 1_795_315_000.0
"""Wall-clock time of boot in these tests: boot second b is wall BOOT_EPOCH + b."""


def near(expected: Any) -> Any:
    """Approximately `expected`: epoch-sized floats keep about 1e-7 s."""
    return pytest.approx(expected, abs=1e-5)


def stamp(boot_second: int) -> str:
    """The API's RFC 3339 stamp of whole boot second `boot_second` (100: 02:38:20Z)."""
    return f"2026-11-22T02:{38 + (boot_second - 80) // 60:02d}:{(boot_second - 80) % 60:02d}Z"


def _pod(aux: str, *, initialized: int) -> dict[str, Any]:
    def condition(kind: str, second: int) -> dict[str, str]:
        return {"type": kind, "status": "True", "lastTransitionTime": stamp(second)}

    return {
        "metadata": {"name": "wf-1", "creationTimestamp": stamp(100)},
        "status": {
            "conditions": [
                condition("PodScheduled", 100),
                condition("PodReadyToStartContainers", 101),
                condition("Initialized", initialized),
            ],
            "containerStatuses": [
                {"name": aux, "state": {"running": {"startedAt": stamp(102)}}},
                {
                    "name": "main",
                    "state": {
                        "terminated": {
                            "startedAt": stamp(102),
                            "finishedAt": stamp(103),
                        }
                    },
                },
            ],
        },
    }


WORKFLOW = {
    "status": {
        "nodes": {
            "wf-1": {"type": "Pod", "phase": "Succeeded", "finishedAt": stamp(104)},
            "wf": {"type": "Steps", "phase": "Running"},
        }
    }
}


def _observed(**seen: float) -> samples.Observed:
    arrivals = {
        "created": 100.25,
        "scheduled": 100.30,
        "sandbox_ready": 101.5,
        "initialized": 102.4,
        "aux_started": 102.9,
        "main_started": 102.9,
        "main_finished": 103.2,
        "node_completed": 104.6,
    }
    arrivals.update(seen)
    return samples.Observed(
        workflow="wf-1",
        submitted_boot=100.0,
        seen_boot=arrivals,
        stamps={},
        finished_boot=105.0,
        phase="Succeeded",
    )


def _log(*, uptime: float, mtime: str = "none") -> str:
    wall = int(BOOT_EPOCH + uptime)
    return (
        f"wpc-bench-start uptime={uptime:.2f} wall={wall} status_mtime={mtime}\n"
        f"wpc-bench-end uptime={uptime + 0.05:.2f}\n"
    )


def test_stamp_helper_matches_the_boot_epoch():
    from wpc.bench import moments

    assert moments.epoch(stamp(100)) == BOOT_EPOCH + 100


def test_legacy_phases_come_from_consecutive_milestones():
    sample = samples.measure(
        _observed(),
        pod=_pod("wait", initialized=102),
        workflow=WORKFLOW,
        log=_log(uptime=102.8),
        boot_epoch=BOOT_EPOCH,
    )
    phases = dict(sample.phases)
    assert phases.pop("handshake_ready") is None  # no supervisor, no marker
    # The API server's stamps take the latest moment allowed, min(second + 1,
    # arrival): created 100.25, scheduled 100.3; the kubelet's the midpoint of
    # [second, min(second + 1, arrival)]: Initialized 102.2 (later than the
    # sandbox's 101.25), wait 102.45; the node its arrival, 104.6. The markers
    # are exact.
    assert phases == near(
        {
            "scheduled": 0.05,
            "sandbox_ready": 1.9,
            "aux_started": 0.25,
            "first_instruction": 0.35,
            "user_command": 0.05,
            "node_completed": 1.75,
        }
    )
    assert sample.pod_startup == near(2.55)
    assert sample.submit_to_pod == near(0.25)
    assert sample.workflow_duration == near(5.0)
    assert sample.main_exit_check == near(0.25)  # finishedAt 103.1
    assert sample.clock_skew == near(-0.8)
    assert sample.milestones["first_instruction"] == near(2.55)
    assert sample.sources["main_finished"] == near({"api": 2.75, "seen": 2.95})
    assert sample.milestones["ready"] is None


def test_initless_phases_include_the_handshake():
    # READY written at boot 102.6; the supervisor started at [102, 102.3].
    sample = samples.measure(
        _observed(initialized=100.3, aux_started=102.3),
        pod=_pod("supervisor", initialized=100),
        workflow=WORKFLOW,
        log=_log(uptime=102.7, mtime="2026-11-22 02:38:22.600000000 +0000"),
        boot_epoch=BOOT_EPOCH,
    )
    assert sample.phases["sandbox_ready"] == near(0.95)  # sandbox 101.25
    assert sample.phases["aux_started"] == near(0.9)  # 102.15
    assert sample.phases["handshake_ready"] == near(0.45)
    assert sample.phases["first_instruction"] == near(0.1)


def test_phases_add_up_to_created_to_node_completed():
    sample = samples.measure(
        _observed(),
        pod=_pod("wait", initialized=102),
        workflow=WORKFLOW,
        log=_log(uptime=102.8),
        boot_epoch=BOOT_EPOCH,
    )
    total = sum(v for v in sample.phases.values() if v is not None)
    assert total == near(sample.milestones["node_completed"])


def test_a_node_not_yet_done_has_no_completion():
    running = {"status": {"nodes": {"a": {"type": "Pod", "phase": "Running"}}}}
    assert workloads.node_finished_at(running) is None
    assert workloads.pod_node({"status": {}}) is None


def test_a_pod_on_another_machine_is_a_clock_error():
    # The pod's uptime is far from this host's boot clock: date - uptime disagrees.
    log = (
        "wpc-bench-start uptime=9.00 wall=1795315104 status_mtime=none\n"
        "wpc-bench-end uptime=9.01\n"
    )
    with pytest.raises(ClockError, match=r"wf-1.*differs from this host's by \+95"):
        samples.measure(
            _observed(),
            pod=_pod("wait", initialized=102),
            workflow=WORKFLOW,
            log=log,
            boot_epoch=BOOT_EPOCH,
        )


def test_a_log_without_markers_is_a_marker_error():
    with pytest.raises(MarkerError):
        samples.measure(
            _observed(), pod={}, workflow=None, log="hello\n", boot_epoch=BOOT_EPOCH
        )


def test_milestones_reached_by_a_pod_object():
    pod = _pod("wait", initialized=102)
    assert set(workloads.reached(pod)) == set(workloads.POD_MILESTONES)
    assert workloads.reached({"metadata": {"creationTimestamp": stamp(100)}}) == {
        "created": stamp(100)
    }


def test_the_stamp_seen_first_wins_over_the_final_pod():
    # PodReadyToStartContainers turns False once the pod completed.
    final = _pod("wait", initialized=102)
    final["status"]["conditions"][1]["status"] = "False"
    observed = samples.Observed(
        workflow="wf-1",
        submitted_boot=100.0,
        seen_boot=_observed().seen_boot,
        stamps={"sandbox_ready": stamp(101)},
        finished_boot=105.0,
        phase="Succeeded",
    )
    sample = samples.measure(
        observed,
        pod=final,
        workflow=WORKFLOW,
        log=_log(uptime=102.8),
        boot_epoch=BOOT_EPOCH,
    )
    assert sample.sources["sandbox_ready"]["api"] == near(0.75)


def test_without_a_workflow_event_the_node_finished_at_stands_in():
    arrivals = dict(_observed().seen_boot)
    del arrivals["node_completed"]
    observed = samples.Observed(
        workflow="wf-1",
        submitted_boot=100.0,
        seen_boot=arrivals,
        stamps={},
        finished_boot=105.0,
        phase="Succeeded",
    )
    sample = samples.measure(
        observed,
        pod=_pod("wait", initialized=102),
        workflow=WORKFLOW,
        log=_log(uptime=102.8),
        boot_epoch=BOOT_EPOCH,
    )
    assert sample.milestones["node_completed"] == near(104.5 - 100.25)


def test_pod_state_names_each_containers_state_reason_and_exit_code():
    pod = {
        "status": {
            "phase": "Failed",
            "initContainerStatuses": [
                {
                    "name": "init",
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
                }
            ],
            "containerStatuses": [
                {"name": "main", "state": {"running": {"startedAt": "t"}}},
            ],
        }
    }
    assert workloads.pod_state(pod) == (
        "phase=Failed containers=[init=terminated(Completed exit 0), main=running]"
    )
    assert workloads.pod_state({}) == "phase=None containers=[]"
