"""We test these aspects of the deliberate faults: parsing of the single switch (unknown
names name the value, executor names pass through, every controller fault documented) and
what each controller fault that shapes the pod breaks (the restart faults are tested with
the controller, runtime/test_controlling.py)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.config import configuration
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.pods import podbuilding

from .conftest import NOW
from .conftest import settings
from .podshapes import container

Json = dict[str, Any]


def test_no_fault_by_default() -> None:
    assert faults.parse("") is None
    assert ControllerSettings.from_env({}).fault is None


@pytest.mark.parametrize("name", [f.value for f in faults.Fault])
def test_every_controller_fault_parses(name):
    parsed = ControllerSettings.from_env({"WPC_REFERENCE_FAULT": name})
    assert parsed.fault is faults.Fault(name)
    # Controller faults stay in the controller: an executor would refuse the name.
    assert parsed.fault_passthrough == ""
    # ... and each has its row in the module's tables of what it breaks.
    assert f"\n{name} " in (faults.__doc__ or "")


@pytest.mark.parametrize("name", ["never-ready", "exit-1-not-65", "slow-heartbeat"])
def test_executor_faults_are_accepted_and_only_passed_through(name):
    parsed = ControllerSettings.from_env({"WPC_REFERENCE_FAULT": name})
    assert parsed.fault is None
    assert parsed.fault_passthrough == name


def test_an_unknown_fault_is_an_error_naming_the_value() -> None:
    with pytest.raises(
        errors.SettingsError, match="WPC_REFERENCE_FAULT='bogus' is not a known fault"
    ):
        ControllerSettings.from_env({"WPC_REFERENCE_FAULT": "bogus"})


def build(
    hello_world: Json, fault: faults.Fault | None, *, initless: bool = True
) -> Json:
    request = podbuilding.PodRequest(
        workflow=hello_world,
        node_name="hello",
        template=hello_world["spec"]["templates"][0],
        now=NOW,
    )
    pod = podbuilding.build_pod(
        request,
        config=configuration.ControllerConfig(initless=initless),
        settings=settings(fault=fault, fault_passthrough=fault.value if fault else ""),
        initless=initless,
    )
    assert pod is not None
    return pod


def test_no_wait_for_ready_env_drops_the_variable(hello_world):
    names = [
        e["name"]
        for e in container(
            build(hello_world, faults.Fault.NO_WAIT_FOR_READY_ENV), "main"
        )["env"]
    ]
    assert "ARGO_WAIT_FOR_READY" not in names


def test_wrong_container_order_puts_the_aux_container_last(hello_world):
    pod = build(hello_world, faults.Fault.WRONG_CONTAINER_ORDER)
    assert [c["name"] for c in pod["spec"]["containers"]] == ["main", "supervisor"]


def test_no_owner_reference_drops_the_owner(hello_world):
    assert (
        "ownerReferences"
        not in build(hello_world, faults.Fault.NO_OWNER_REFERENCE)["metadata"]
    )


def test_a_correct_controller_builds_none_of_these_faults(hello_world):
    pod = build(hello_world, None)
    assert [c["name"] for c in pod["spec"]["containers"]] == ["supervisor", "main"]
    assert pod["metadata"]["ownerReferences"]
    assert "WPC_REFERENCE_FAULT" not in [
        e["name"] for e in container(pod, "main")["env"]
    ]


def test_image_cmd_ignored_leaves_a_commandless_main_without_the_cmd() -> None:
    # WPC-EMISSARY-009: args unset means the image's CMD; the fault drops it.
    wf = yaml.safe_load(
        """
metadata: {name: wf, namespace: ns, uid: uid-1}
spec: {entrypoint: t, templates: [{name: t, container: {image: app:1}}]}
"""
    )
    config = configuration.ControllerConfig(
        images={"app:1": {"entrypoint": ["/app"], "cmd": ["--serve"]}}
    )

    def main_of(fault: faults.Fault | None) -> Json:
        request = podbuilding.PodRequest(
            workflow=wf, node_name="wf", template=wf["spec"]["templates"][0], now=NOW
        )
        pod = podbuilding.build_pod(
            request, config=config, settings=settings(fault=fault), initless=False
        )
        assert pod is not None
        return container(pod, "main")

    assert main_of(None)["args"] == ["--serve"]
    broken = main_of(faults.Fault.IMAGE_CMD_IGNORED)
    assert broken["command"][-2:] == ["--", "/app"]
    assert "args" not in broken
