"""We test these aspects of reading the environment once (`ExecutorSettings.from_env`):
the Argo variables, defaults (container `main`, 30 s grace, no deadline for Go's
zero time), a bad deadline as a ConfigError, and the binary to copy.
"""

from __future__ import annotations

import datetime

import pytest

from reference_impl.executor.errors import ConfigError
from reference_impl.executor.settings import ExecutorSettings


def test_reads_the_argo_variables():
    s = ExecutorSettings.from_env(
        {
            "ARGO_CONTAINER_NAME": "wait",
            "ARGO_NODE_ID": "wf-1",
            "ARGO_WORKFLOW_NAME": "wf",
            "ARGO_WORKFLOW_UID": "u",
            "ARGO_INSTANCE_ID": "i",
            "ARGO_INCLUDE_SCRIPT_OUTPUT": "true",
            "ARGO_DEADLINE": "2030-01-02T03:04:05Z",
            "ARGO_TEMPLATE": "{}",
            "ARGO_WAIT_FOR_READY": "true",
            "ARGO_TERMINATION_GRACE_PERIOD_SECONDS": "7",
            "ARGO_ARTIFACT_PLUGIN_NAMES": "artifact-plugin-a,artifact-plugin-b",
        }
    )
    assert s.container_name == "wait"
    assert (s.node_id, s.workflow_name, s.workflow_uid, s.instance_id) == (
        "wf-1",
        "wf",
        "u",
        "i",
    )
    assert s.include_script_output
    assert s.deadline == datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    assert s.template_env == "{}"
    assert s.wait_for_ready
    assert s.grace_seconds == 7.0
    assert s.artifact_plugin_names == ("artifact-plugin-a", "artifact-plugin-b")


def test_defaults():
    s = ExecutorSettings.from_env({"ARGO_DEADLINE": "0001-01-01T00:00:00Z"})
    assert s.container_name == "main"
    assert s.deadline is None
    assert s.grace_seconds == 30.0
    assert not s.wait_for_ready
    assert s.fault is None
    assert s.executor_binary is None


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_unusable_grace_falls_back_to_30_seconds(value):
    s = ExecutorSettings.from_env({"ARGO_TERMINATION_GRACE_PERIOD_SECONDS": value})
    assert s.grace_seconds == 30.0


def test_bad_deadline_is_a_config_error():
    with pytest.raises(ConfigError, match="ARGO_DEADLINE"):
        ExecutorSettings.from_env({"ARGO_DEADLINE": "tomorrow"})


def test_the_binary_to_copy_comes_from_the_launcher_not_the_environment():
    # The launcher names itself in its launch arguments (`launching`); the CLI sets it.
    s = ExecutorSettings.from_env({"STATICX_PROG_PATH": "/bin/argoexec"})
    assert s.executor_binary is None
