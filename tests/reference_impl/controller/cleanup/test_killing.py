"""We test these aspects of killing containers (contract 5.2): the kill command table,
the annotation override with `%d`, malformed annotations, and the grace period."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.cleanup import killing

Json = dict[str, Any]


def pod(annotations: dict[str, str] | None = None) -> Json:
    return {
        "metadata": {"annotations": annotations or {}},
        "spec": {
            "containers": [
                {
                    "name": "supervisor",
                    "volumeMounts": [{"mountPath": "/var/run/argo"}],
                },
                {
                    "name": "main",
                    "volumeMounts": [
                        {"mountPath": "/argo-bin"},
                        {"mountPath": "/var/run/argo"},
                    ],
                },
                {"name": "legacy", "volumeMounts": [{"mountPath": "/var/run/argo"}]},
                {"name": "injected", "volumeMounts": []},
            ]
        },
        "status": {
            "containerStatuses": [
                {"name": "main", "state": {"running": {}}},
                {"name": "injected", "state": {"running": {}}},
                {"name": "supervisor", "state": {"terminated": {"exitCode": 0}}},
            ]
        },
    }


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        ("wait", ["argoexec", "kill", "15", "1"]),
        ("supervisor", ["argoexec", "kill", "15", "1"]),
        ("main", ["/argo-bin/bin/argoexec", "kill", "15", "1"]),
        ("legacy", ["/var/run/argo/argoexec", "kill", "15", "1"]),
        ("injected", ["/bin/sh", "-c", "kill -15 1"]),
    ],
)
def test_kill_command_table(container, expected):
    assert killing.kill_command(pod(), container, killing.SIGTERM) == expected


def test_kill_annotation_overrides_and_fills_in_the_signal() -> None:
    subject = pod(
        {
            "workflows.argoproj.io/kill-cmd-injected": '["sh", "-c", "kill -%d $(pidof envoy)"]'
        }
    )
    assert killing.kill_command(subject, "injected", killing.SIGKILL) == [
        "sh",
        "-c",
        "kill -9 $(pidof envoy)",
    ]


def test_malformed_kill_annotation_is_reported() -> None:
    subject = pod({"workflows.argoproj.io/kill-cmd-injected": "kill it"})
    with pytest.raises(
        errors.WorkflowError, match="failed to unmarshall kill command annotation"
    ):
        killing.kill_command(subject, "injected", killing.SIGTERM)


def test_only_running_containers_are_signalled() -> None:
    assert killing.running_containers(pod()) == ["main", "injected"]


def test_grace_period_defaults_to_30_seconds() -> None:
    assert killing.grace_seconds(pod()) == 30.0
    subject = pod()
    subject["spec"]["terminationGracePeriodSeconds"] = 5
    assert killing.grace_seconds(subject) == 5.0


@pytest.mark.parametrize("container", ["wait", "main", "legacy"])
def test_kill_default_not_pid1_leaves_argoexec_commands_alone(container):
    fault = faults.Fault.KILL_DEFAULT_NOT_PID1
    assert killing.kill_command(
        pod(), container, killing.SIGTERM, fault=fault
    ) == killing.kill_command(pod(), container, killing.SIGTERM)


def test_kill_default_not_pid1_signals_all_but_pid_1_of_an_injected_container():
    """The negative control for WPC-KILL-005: `-1` is every process but init."""
    fault = faults.Fault.KILL_DEFAULT_NOT_PID1
    assert killing.kill_command(pod(), "injected", killing.SIGTERM, fault=fault) == [
        "/bin/sh",
        "-c",
        "kill -15 -1",
    ]


def test_kill_cmd_ignored_uses_the_command_without_the_annotation():
    """The negative control for WPC-KILL-006."""
    subject = pod({"workflows.argoproj.io/kill-cmd-injected": '["echo", "%d"]'})
    fault = faults.Fault.KILL_CMD_IGNORED
    assert killing.kill_command(subject, "injected", killing.SIGTERM) == ["echo", "15"]
    assert killing.kill_command(subject, "injected", killing.SIGTERM, fault=fault) == [
        "/bin/sh",
        "-c",
        "kill -15 1",
    ]
