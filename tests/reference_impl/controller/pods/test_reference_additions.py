"""We test these aspects of the reference-only additions: which containers get them, the
TMPDIR hand-over to WPC_USER_TMPDIR, and the fault pass-through."""

from __future__ import annotations

from typing import Any

from reference_impl.controller.config import configuration
from reference_impl.controller.pods import podbuilding
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow
from tests.reference_impl.controller.podshapes import container
from tests.reference_impl.controller.podshapes import value

Json = dict[str, Any]


def build(wf: Json, *, initless: bool, **overrides: Any) -> Json:
    request = podbuilding.PodRequest(
        workflow=wf,
        node_name=wf["metadata"]["name"],
        template=wf["spec"]["templates"][0],
        now=NOW,
    )
    pod = podbuilding.build_pod(
        request,
        config=configuration.ControllerConfig(),
        settings=settings(**overrides),
        initless=initless,
    )
    assert pod is not None
    return pod


WF = """
spec:
  entrypoint: t
  templates:
  - name: t
    initContainers: [{name: prepare, image: busybox, command: ["true"]}]
    container: {image: busybox, command: [ls], env: [{name: TMPDIR, value: /scratch}]}
    sidecars: [{name: proxy, image: nginx, command: [nginx]}]
"""


def test_every_argoexec_container_gets_tmpdir_on_the_shared_volume() -> None:
    for initless in (False, True):
        pod = build(workflow(WF), initless=initless)
        runners = (
            ["wait", "main", "proxy"]
            if not initless
            else ["supervisor", "main", "proxy"]
        )
        runners += [] if initless else ["init"]
        for name in runners:
            env = container(pod, name)["env"]
            assert value("TMPDIR", "/var/run/argo") in env, name
            assert value("WPC_EXECUTOR_TMPDIR", "/var/run/argo") in env, name


def test_user_init_containers_get_no_additions() -> None:
    pod = build(workflow(WF), initless=False)
    names = [e["name"] for e in container(pod, "prepare")["env"]]
    assert "TMPDIR" not in names
    assert "WPC_EXECUTOR_TMPDIR" not in names


def test_a_declared_tmpdir_is_handed_over_to_the_emissary() -> None:
    main = container(build(workflow(WF), initless=True), "main")
    assert value("WPC_USER_TMPDIR", "/scratch") in main["env"]
    assert [e for e in main["env"] if e["name"] == "TMPDIR"] == [
        value("TMPDIR", "/var/run/argo")
    ]


def test_fault_name_is_passed_through_only_when_set() -> None:
    pod = build(workflow(WF), initless=True)
    assert all(
        e["name"] != "WPC_REFERENCE_FAULT" for e in container(pod, "main")["env"]
    )
    pod = build(workflow(WF), initless=True, fault_passthrough="never-ready")
    for name in ("supervisor", "main", "proxy"):
        assert (
            value("WPC_REFERENCE_FAULT", "never-ready") in container(pod, name)["env"]
        )
