"""We test these aspects of start-up settings and the controller ConfigMap: environment
variables and their defaults, Go durations, both ConfigMap forms, and malformed input."""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.config import configuration
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.formats import durations
from reference_impl.controller.runtime import running


def test_settings_from_env_defaults_and_overrides() -> None:
    defaults = ControllerSettings.from_env({})
    assert (
        defaults.namespace,
        defaults.configmap,
        defaults.status_capture_finalizer,
    ) == (
        "argo",
        "workflow-controller-configmap",
        False,
    )
    custom = ControllerSettings.from_env(
        {
            "ARGO_POD_STATUS_CAPTURE_FINALIZER": "true",
            "RECENTLY_STARTED_POD_DURATION": "1s",
            "LEADER_ELECTION_DISABLE": "true",
            "LEADER_ELECTION_IDENTITY": "pod-a",
        },
        namespace="argo-initless",
        configmap="initless-config",
        lease_name="initless-lease",
    )
    assert custom.status_capture_finalizer
    assert custom.recently_started_pod_seconds == 1.0
    assert not custom.leader_election
    assert custom.identity == "pod-a"
    assert (custom.namespace, custom.configmap, custom.lease_name) == (
        "argo-initless",
        "initless-config",
        "initless-lease",
    )


def test_a_malformed_duration_is_a_settings_error() -> None:
    with pytest.raises(errors.SettingsError, match="DEFAULT_REQUEUE_TIME='soon'"):
        ControllerSettings.from_env({"DEFAULT_REQUEUE_TIME": "soon"})


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("10s", 10.0), ("1m0s", 60.0), ("1h2m3s", 3723.0), ("500ms", 0.5), ("30", 30.0)],
)
def test_go_durations_parse(text, seconds):
    assert durations.parse(text) == seconds


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (3, "3s"), (60, "1m0s"), (3723, "1h2m3s"), (0.5, "500ms")],
)
def test_go_durations_format_like_time_duration_string(seconds, text):
    assert durations.format_go(seconds) == text


def test_configmap_with_top_level_keys() -> None:
    parsed = configuration.parse(
        {
            "initlessPod": "enabled: true\n",
            "instanceID": "i1",
            "executor": "image: reg/argoexec:v1\nimagePullPolicy: Never\n",
            "podGCDeleteDelayDuration": "30s",
        }
    )
    assert parsed.initless
    assert parsed.instance_id == "i1"
    assert parsed.executor_image(None) == "reg/argoexec:v1"
    assert parsed.executor_image("flag/argoexec:v2") == "flag/argoexec:v2"
    assert parsed.executor_pull_policy() == "Never"
    assert parsed.pod_gc_delete_delay_seconds == 30.0


def test_configmap_with_a_config_key() -> None:
    parsed = configuration.parse(
        {"config": "initlessPod:\n  enabled: true\ninstanceID: i2\n"}
    )
    assert (parsed.initless, parsed.instance_id) == (True, "i2")


def test_empty_configmap_gives_the_defaults() -> None:
    parsed = configuration.parse(None)
    assert not parsed.initless
    assert parsed.executor_image(None) == "wpc.local/reference/argoexec:0.1.0"
    assert parsed.executor_pull_policy() == "IfNotPresent"


def test_config_key_must_be_alone() -> None:
    with pytest.raises(
        errors.ConfigError, match="named 'config', you must only have one item"
    ):
        configuration.parse({"config": "instanceID: a\n", "other": "x"})


def test_invalid_yaml_is_a_config_error() -> None:
    with pytest.raises(errors.ConfigError, match="not valid YAML"):
        configuration.parse({"config": "a: [unclosed"})


def test_lease_name_follows_argo_unless_given() -> None:
    assert (
        running.lease_name(ControllerSettings.from_env({}), "") == "workflow-controller"
    )
    assert (
        running.lease_name(ControllerSettings.from_env({}), "i1")
        == "workflow-controller-i1"
    )
    assert (
        running.lease_name(ControllerSettings.from_env({}, lease_name="mine"), "i1")
        == "mine"
    )
