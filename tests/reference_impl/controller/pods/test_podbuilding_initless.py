"""We test these aspects of the init-less pod layout (contract 2.2, 2.5), field by field:

no Argo init containers, the supervisor and its env, the argoexec-bin image volume and its
pull policy, the /argo-bin mount and ARGO_WAIT_FOR_READY on every wrapped container
(main and sidecars), whole-volume input artifacts, script staging, user init containers,
the ancestor-of-a-volume-mount admission error, and executor image configuration.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller.config import configuration
from reference_impl.controller.pods import podbuilding
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow
from tests.reference_impl.controller.podshapes import EXECUTOR_IMAGE
from tests.reference_impl.controller.podshapes import LOG_OPTIONS
from tests.reference_impl.controller.podshapes import argo_only
from tests.reference_impl.controller.podshapes import container
from tests.reference_impl.controller.podshapes import env_names
from tests.reference_impl.controller.podshapes import executor_env
from tests.reference_impl.controller.podshapes import standard_env
from tests.reference_impl.controller.podshapes import value

Json = dict[str, Any]


def build(
    wf: Json, *, config: configuration.ControllerConfig | None = None, **overrides: Any
) -> Json:
    request = podbuilding.PodRequest(
        workflow=wf,
        node_name=wf["metadata"]["name"],
        template=wf["spec"]["templates"][0],
        now=NOW,
    )
    pod = podbuilding.build_pod(
        request,
        config=config or configuration.ControllerConfig(initless=True),
        settings=overrides.pop("settings", None) or settings(),
        initless=True,
    )
    assert pod is not None
    return pod


def test_hello_world_has_no_init_containers_and_supervisor_then_main(hello_world):
    pod = build(hello_world)
    assert "initContainers" not in pod["spec"]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["supervisor", "main"]
    assert pod["spec"]["volumes"] == [
        {"name": "var-run-argo", "emptyDir": {}},
        {"name": "tmp-dir-argo", "emptyDir": {}},
        {
            "name": "argoexec-bin",
            "image": {"reference": EXECUTOR_IMAGE, "pullPolicy": "IfNotPresent"},
        },
    ]


def test_hello_world_supervisor_field_by_field(hello_world):
    supervisor = container(argo_only(build(hello_world)), "supervisor")
    template_json = json.dumps(
        {
            "name": "main",
            "container": {"image": "busybox:1.36", "command": ["echo", "hello"]},
            "inputs": {},
        },
        separators=(",", ":"),
    )
    assert supervisor == {
        "name": "supervisor",
        "image": EXECUTOR_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["argoexec", "supervisor", *LOG_OPTIONS],
        "resources": {},
        "env": [
            *executor_env(),
            value("ARGO_INITLESS_POD", "true"),
            value("ARGO_CONTAINER_NAME", "supervisor"),
            *standard_env(),
            value("ARGO_TEMPLATE", template_json),
        ],
        "volumeMounts": [
            {"name": "tmp-dir-argo", "mountPath": "/tmp", "subPath": "0"},
            {"name": "var-run-argo", "mountPath": "/var/run/argo"},
        ],
    }


def test_hello_world_main_runs_emissary_from_the_image_volume_and_waits_for_ready(
    hello_world,
):
    main = container(argo_only(build(hello_world)), "main")
    assert main == {
        "name": "main",
        "image": "busybox:1.36",
        "command": [
            "/argo-bin/bin/argoexec",
            "emissary",
            *LOG_OPTIONS,
            "--",
            "echo",
            "hello",
        ],
        "env": [
            value("ARGO_CONTAINER_NAME", "main"),
            *standard_env(),
            value("ARGO_WAIT_FOR_READY", "true"),
        ],
        "volumeMounts": [
            {"name": "argoexec-bin", "mountPath": "/argo-bin", "readOnly": True},
            {"name": "var-run-argo", "mountPath": "/var/run/argo"},
        ],
    }
    assert "ARGO_INITLESS_POD" not in env_names(main)
    assert "ARGO_TEMPLATE" not in env_names(main)


def test_sidecars_are_decorated_like_main() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [sleep, "1"]}
    sidecars: [{name: proxy, image: nginx:1.27, command: [nginx]}]
"""
    )
    proxy = container(argo_only(build(wf)), "proxy")
    assert proxy["command"][:2] == ["/argo-bin/bin/argoexec", "emissary"]
    assert value("ARGO_WAIT_FOR_READY", "true") in proxy["env"]
    assert {
        "name": "argoexec-bin",
        "mountPath": "/argo-bin",
        "readOnly": True,
    } in proxy["volumeMounts"]


def test_input_artifacts_mount_the_whole_volume_on_main_and_supervisor() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    inputs: {artifacts: [{name: data, path: /in/data.txt, raw: {data: hello}}]}
    container: {image: busybox, command: [cat, /in/data.txt]}
"""
    )
    pod = argo_only(build(wf))
    assert container(pod, "main")["volumeMounts"] == [
        {"name": "input-artifacts", "mountPath": "/argo/inputs/artifacts"},
        {"name": "argoexec-bin", "mountPath": "/argo-bin", "readOnly": True},
        {"name": "var-run-argo", "mountPath": "/var/run/argo"},
    ]
    supervisor_mounts = container(pod, "supervisor")["volumeMounts"]
    assert supervisor_mounts[0] == {
        "name": "input-artifacts",
        "mountPath": "/argo/inputs/artifacts",
    }
    assert {
        "name": "input-artifacts",
        "mountPath": "/mainctrfs/argo/inputs/artifacts",
    } in supervisor_mounts


def test_input_artifact_above_a_volume_mount_is_rejected() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  volumes: [{name: shared, emptyDir: {}}]
  templates:
  - name: t
    inputs: {artifacts: [{name: data, path: /data, raw: {data: x}}]}
    container: {image: busybox, command: [ls], volumeMounts: [{name: shared, mountPath: /data/shared}]}
"""
    )
    message = (
        'input artifact "data" path "/data" is an ancestor of volume mount "shared" (/data/shared); '
        "this is not supported in init-less pod mode because staging the artifact would clear the mounted volume"
    )
    with pytest.raises(errors.PodBuildError) as caught:
        build(wf)
    assert str(caught.value) == message


def test_script_staging_is_shared_by_supervisor_and_main() -> None:
    wf = workflow(
        """
spec:
  entrypoint: s
  templates:
  - name: s
    script: {image: python:3.12, command: [python], source: "print(1)"}
"""
    )
    pod = argo_only(build(wf))
    assert {"name": "argo-staging", "mountPath": "/argo/staging"} in container(
        pod, "supervisor"
    )["volumeMounts"]
    assert container(pod, "main")["volumeMounts"][0] == {
        "name": "argo-staging",
        "mountPath": "/argo/staging",
    }


def test_user_init_containers_stay_and_mount_var_run_argo() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    initContainers: [{name: prepare, image: busybox, command: ["true"]}]
    container: {image: busybox, command: [ls]}
"""
    )
    pod = argo_only(build(wf))
    assert [c["name"] for c in pod["spec"]["initContainers"]] == ["prepare"]
    prepare = pod["spec"]["initContainers"][0]
    assert prepare["command"] == ["true"]
    assert prepare["volumeMounts"] == [
        {"name": "var-run-argo", "mountPath": "/var/run/argo"}
    ]
    assert env_names(prepare)[:2] == ["ARGO_CONTAINER_NAME", "ARGO_TEMPLATE"]


def test_executor_image_comes_from_flag_then_config_then_default(hello_world):
    config = configuration.ControllerConfig(
        initless=True,
        executor={"image": "registry.local/argoexec:v1", "imagePullPolicy": "Never"},
    )
    pod = build(hello_world, config=config)
    assert container(pod, "supervisor")["image"] == "registry.local/argoexec:v1"
    assert container(pod, "supervisor")["imagePullPolicy"] == "Never"
    assert pod["spec"]["volumes"][-1]["image"] == {
        "reference": "registry.local/argoexec:v1",
        "pullPolicy": "Never",
    }
    pod = build(
        hello_world, config=config, settings=settings(executor_image="flag/argoexec:v2")
    )
    assert container(pod, "supervisor")["image"] == "flag/argoexec:v2"
    assert pod["spec"]["volumes"][-1]["image"]["reference"] == "flag/argoexec:v2"
