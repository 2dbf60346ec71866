"""We test these aspects of phase and message inference (contract 3), with exact strings:

`inferFailedReason` in order (pod message, waiting containers, init, main, wait,
supervisor, other containers, the fallbacks), supervisor precedence only when main exited
65 (and the `main-message-first` fault), Pending reasons, and `assessNodeStatus` holds
(aux still running, outputs missing), exit codes and termination triggers.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controller.templates.nodes import inference
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.conftest import waiting

Json = dict[str, Any]


def pod(status: Json) -> Json:
    return {
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"nodeName": "node-1"},
        "status": status,
    }


FAILED_CASES = [
    (
        "pod message wins",
        pod_status(
            "Failed",
            message="Pod was active on the node longer than the specified deadline",
            main=terminated(137),
        ),
        ("Failed", "Pod was active on the node longer than the specified deadline"),
    ),
    (
        "main error",
        pod_status("Failed", main=terminated(1, reason="Error"), wait=terminated(0)),
        ("Failed", "main: Error (exit code 1)"),
    ),
    (
        "main OOMKilled",
        pod_status(
            "Failed", main=terminated(137, reason="OOMKilled"), wait=terminated(0)
        ),
        ("Failed", "main: OOMKilled (exit code 137)"),
    ),
    (
        "wait OOMKilled is an Error",
        pod_status(
            "Failed", main=terminated(0), wait=terminated(137, reason="OOMKilled")
        ),
        ("Error", "wait: OOMKilled (exit code 137)"),
    ),
    (
        "termination message is appended",
        pod_status(
            "Failed",
            main=terminated(2, reason="Error", message="boom"),
            wait=terminated(0),
        ),
        ("Failed", "main: Error (exit code 2): boom"),
    ),
    (
        "main outranks wait",
        pod_status(
            "Failed",
            wait=terminated(1, reason="Error"),
            main=terminated(3, reason="Error"),
        ),
        ("Failed", "main: Error (exit code 3)"),
    ),
    (
        "init failure is an Error and outranks main",
        pod_status(
            "Failed",
            init={"init": terminated(1, reason="Error", message="bad artifact")},
            main=waiting("PodInitializing"),
        ),
        ("Error", "init: Error (exit code 1): bad artifact"),
    ),
    (
        "a waiting container",
        pod_status(
            "Failed", main=waiting("ErrImagePull", "pull failed"), wait=terminated(0)
        ),
        (
            "Error",
            "Pod failed before main container starts due to ErrImagePull: pull failed",
        ),
    ),
    (
        "sidecar 137/143 is ignored",
        pod_status(
            "Failed",
            main=terminated(0),
            wait=terminated(0),
            proxy=terminated(143, reason="Error"),
        ),
        ("Succeeded", ""),
    ),
    (
        "other sidecar failure fails the node",
        pod_status(
            "Failed",
            main=terminated(0),
            wait=terminated(0),
            proxy=terminated(2, reason="Error"),
        ),
        ("Failed", "proxy: Error (exit code 2)"),
    ),
    (
        "wait missing",
        pod_status("Failed", main=terminated(0)),
        ("Failed", "pod failed: wait container did not complete successfully"),
    ),
    (
        "main missing",
        pod_status("Failed", wait=terminated(0)),
        ("Failed", "pod failed: main container did not complete successfully"),
    ),
    (
        "neither",
        pod_status("Failed", main=running(), wait=running()),
        (
            "Failed",
            "pod failed: neither main nor wait container completed successfully",
        ),
    ),
    (
        "no statuses",
        {"phase": "Failed"},
        ("Failed", "can't find failed message for pod p namespace ns"),
    ),
]


@pytest.mark.parametrize(
    ("status", "expected"),
    [c[1:] for c in FAILED_CASES],
    ids=[c[0] for c in FAILED_CASES],
)
def test_infer_failed_reason(status, expected):
    assert inference.infer_failed_reason(pod(status)) == expected


def test_supervisor_message_wins_only_when_main_exited_65() -> None:
    status = pod_status(
        "Failed",
        aux="supervisor",
        main=terminated(
            65, reason="Error", message="supervisor reported pre-main failure: x"
        ),
        wait=terminated(
            64,
            reason="Error",
            message='failed to load input artifacts from plugin "p": x',
        ),
    )
    assert inference.infer_failed_reason(pod(status)) == (
        "Error",
        'supervisor: Error (exit code 64): failed to load input artifacts from plugin "p": x',
    )


def test_main_message_first_fault_breaks_supervisor_precedence() -> None:
    status = pod_status(
        "Failed",
        aux="supervisor",
        main=terminated(
            65, reason="Error", message="supervisor reported pre-main failure: x"
        ),
        wait=terminated(64, reason="Error", message="failed to write template: x"),
    )
    phase, message = inference.infer_failed_reason(
        pod(status), supervisor_precedence=False
    )
    assert (phase, message) == (
        "Failed",
        "main: Error (exit code 65): supervisor reported pre-main failure: x",
    )


def test_supervisor_ranks_with_wait_when_main_failed_normally() -> None:
    status = pod_status(
        "Failed",
        aux="supervisor",
        main=terminated(1, reason="Error"),
        wait=terminated(64, reason="Error"),
    )
    assert inference.infer_failed_reason(pod(status)) == (
        "Failed",
        "main: Error (exit code 1)",
    )


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (pod_status("Pending", main=waiting("ContainerCreating")), "ContainerCreating"),
        (
            pod_status("Pending", main=waiting("ImagePullBackOff", "Back-off pulling")),
            "ImagePullBackOff: Back-off pulling",
        ),
        (
            {
                "phase": "Pending",
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "reason": "Unschedulable",
                        "message": "0/1 nodes",
                    }
                ],
            },
            "Unschedulable: 0/1 nodes",
        ),
        ({"phase": "Pending"}, ""),
    ],
)
def test_pending_reason(status, expected):
    assert inference.pending_reason(pod(status)) == expected


def node(phase: str = "Running", **extra: Any) -> Json:
    return {
        "id": "wf-1",
        "name": "wf[0].a",
        "type": "Pod",
        "phase": phase,
        "taskResultSynced": True,
        **extra,
    }


def test_succeeded_pod_sets_exit_code_host_and_finish_time() -> None:
    status = pod_status(
        "Succeeded",
        main=terminated(0, finished="2026-01-02T03:04:01Z"),
        wait=terminated(0, finished="2026-01-02T03:04:02Z"),
    )
    result = inference.assess(
        pod(status), node(), template={}, now="2026-01-02T03:05:00Z"
    )
    assert result.node is not None
    assert result.node["phase"] == "Succeeded"
    assert result.node["outputs"] == {"exitCode": "0"}
    assert result.node["hostNodeName"] == "node-1"
    assert result.node["finishedAt"] == "2026-01-02T03:04:02Z"
    assert result.node["progress"] == "0/1"


def test_completed_phase_is_held_while_the_aux_container_still_runs() -> None:
    status = pod_status("Running", main=terminated(0), wait=running())
    result = inference.assess(pod(status), node(), template={}, now="t")
    assert result.node is not None
    assert result.node["phase"] == "Running"
    assert result.terminate


def test_failed_aux_marks_the_task_result_complete() -> None:
    status = pod_status(
        "Failed", main=terminated(0), wait=terminated(1, reason="Error")
    )
    result = inference.assess(pod(status), node(), template={}, now="t")
    assert result.task_result_complete
    assert result.node is not None
    assert result.node["phase"] == "Error"
    assert result.node["message"] == "wait: Error (exit code 1)"


def test_success_waits_for_declared_output_parameters() -> None:
    template = {"outputs": {"parameters": [{"name": "x", "valueFrom": {"path": "/x"}}]}}
    status = pod_status("Succeeded", main=terminated(0), wait=terminated(0))
    result = inference.assess(pod(status), node(), template=template, now="t")
    assert result.node is not None
    assert result.node["phase"] == "Running"
    ready = node(outputs={"parameters": [{"name": "x", "value": "1"}]})
    after = inference.assess(pod(status), ready, template=template, now="t").node
    assert after is not None
    assert after["phase"] == "Succeeded"


def test_running_pod_with_unfinished_main_needs_no_termination() -> None:
    status = pod_status("Running", main=running(), wait=running())
    assert not inference.assess(
        pod(status), node("Pending"), template={}, now="t"
    ).terminate


def test_main_exited_non_zero_while_sidecars_run_triggers_termination() -> None:
    status = pod_status(
        "Running", main=terminated(1, reason="Error"), wait=running(), proxy=running()
    )
    assert inference.needs_termination(pod(status))


def test_unexpected_pod_phase_is_an_error() -> None:
    result = inference.assess(pod({"phase": "Unknown"}), node(), template={}, now="t")
    assert result.node is not None
    assert (result.node["phase"], result.node["message"]) == (
        "Error",
        "Unexpected pod phase for p: Unknown",
    )
