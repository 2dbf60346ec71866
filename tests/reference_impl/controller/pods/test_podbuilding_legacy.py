"""We test these aspects of the legacy pod layout (contract 1.1-1.4), field by field:

hello-world metadata, containers and their order, init container, commands, env, volumes
and mounts; script templates; input artifacts; sidecars; instanceID; the status finalizer
on and off; podGC and activeDeadlineSeconds; podSpecPatch; build errors.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller.config import configuration
from reference_impl.controller.pods import podbuilding
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import settings as default_settings
from tests.reference_impl.controller.conftest import workflow
from tests.reference_impl.controller.podshapes import EXECUTOR_IMAGE
from tests.reference_impl.controller.podshapes import LOG_OPTIONS
from tests.reference_impl.controller.podshapes import argo_only
from tests.reference_impl.controller.podshapes import container
from tests.reference_impl.controller.podshapes import executor_env
from tests.reference_impl.controller.podshapes import standard_env
from tests.reference_impl.controller.podshapes import value


def build(
    wf: Any,
    *,
    node_name: str | None = None,
    template: Any = None,
    config: configuration.ControllerConfig | None = None,
    initless: bool = False,
    settings: Any = None,
    **request: Any,
) -> Any:
    template = template or wf["spec"]["templates"][0]
    req = podbuilding.PodRequest(
        workflow=wf,
        node_name=node_name or wf["metadata"]["name"],
        template=template,
        now=NOW,
        **request,
    )
    return podbuilding.build_pod(
        req,
        config=config or configuration.ControllerConfig(),
        settings=settings or default_settings(),
        initless=initless,
    )


def test_hello_world_metadata_matches_the_contract(hello_world):
    pod = build(hello_world)
    assert pod["metadata"] == {
        "name": "hello",
        "namespace": "ns",
        "labels": {
            "workflows.argoproj.io/workflow": "hello",
            "workflows.argoproj.io/completed": "false",
        },
        "annotations": {
            "workflows.argoproj.io/node-name": "hello",
            "workflows.argoproj.io/node-id": "hello",
            "kubectl.kubernetes.io/default-container": "main",
        },
        "ownerReferences": [
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "Workflow",
                "name": "hello",
                "uid": "uid-1",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }


def test_hello_world_has_init_then_wait_then_main(hello_world):
    pod = build(hello_world)
    assert [c["name"] for c in pod["spec"]["initContainers"]] == ["init"]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["wait", "main"]
    assert pod["spec"]["restartPolicy"] == "Never"
    assert pod["spec"]["volumes"] == [
        {"name": "var-run-argo", "emptyDir": {}},
        {"name": "tmp-dir-argo", "emptyDir": {}},
    ]


def test_hello_world_init_container_field_by_field(hello_world):
    init = container(argo_only(build(hello_world)), "init")
    template_json = json.dumps(
        {
            "name": "main",
            "container": {"image": "busybox:1.36", "command": ["echo", "hello"]},
            "inputs": {},
        },
        separators=(",", ":"),
    )
    assert init == {
        "name": "init",
        "image": EXECUTOR_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["argoexec", "init", *LOG_OPTIONS],
        "resources": {},
        "env": [
            *executor_env(),
            value("ARGO_CONTAINER_NAME", "init"),
            value("ARGO_TEMPLATE", template_json),
            *standard_env(),
        ],
        "volumeMounts": [{"name": "var-run-argo", "mountPath": "/var/run/argo"}],
    }


def test_hello_world_wait_container_field_by_field(hello_world):
    wait = container(argo_only(build(hello_world)), "wait")
    assert wait == {
        "name": "wait",
        "image": EXECUTOR_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["argoexec", "wait", *LOG_OPTIONS],
        "resources": {},
        "env": [*executor_env(), value("ARGO_CONTAINER_NAME", "wait"), *standard_env()],
        "volumeMounts": [
            {"name": "tmp-dir-argo", "mountPath": "/tmp", "subPath": "0"},
            {"name": "var-run-argo", "mountPath": "/var/run/argo"},
        ],
    }


def test_hello_world_main_is_wrapped_by_the_copied_emissary(hello_world):
    main = container(argo_only(build(hello_world)), "main")
    assert main == {
        "name": "main",
        "image": "busybox:1.36",
        "command": [
            "/var/run/argo/argoexec",
            "emissary",
            *LOG_OPTIONS,
            "--",
            "echo",
            "hello",
        ],
        "env": [value("ARGO_CONTAINER_NAME", "main"), *standard_env()],
        "volumeMounts": [{"name": "var-run-argo", "mountPath": "/var/run/argo"}],
    }


def test_script_template_stages_source_and_appends_its_path_to_args() -> None:
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
    main, init, wait = (
        container(pod, "main"),
        container(pod, "init"),
        container(pod, "wait"),
    )
    assert main["command"] == [
        "/var/run/argo/argoexec",
        "emissary",
        *LOG_OPTIONS,
        "--",
        "python",
    ]
    assert main["args"] == ["/argo/staging/script"]
    assert {"name": "argo-staging", "emptyDir": {}} in pod["spec"]["volumes"]
    assert {"name": "argo-staging", "mountPath": "/argo/staging"} in init[
        "volumeMounts"
    ]
    assert main["volumeMounts"] == [
        {"name": "argo-staging", "mountPath": "/argo/staging"},
        {"name": "var-run-argo", "mountPath": "/var/run/argo"},
    ]
    assert {"name": "argo-staging", "mountPath": "/mainctrfs/argo/staging"} in wait[
        "volumeMounts"
    ]
    assert "source" not in main


def test_input_artifacts_are_mounted_per_artifact_with_subpath() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    inputs:
      artifacts:
      - {name: data, path: /in/data.txt, raw: {data: hello}}
      - {name: page, path: /in/page.html, http: {url: "http://example.invalid/x"}}
    container: {image: busybox, command: [cat, /in/data.txt]}
"""
    )
    pod = argo_only(build(wf))
    assert pod["spec"]["volumes"][-1] == {"name": "input-artifacts", "emptyDir": {}}
    assert container(pod, "init")["volumeMounts"] == [
        {"name": "input-artifacts", "mountPath": "/argo/inputs/artifacts"},
        {"name": "var-run-argo", "mountPath": "/var/run/argo"},
    ]
    assert container(pod, "main")["volumeMounts"] == [
        {"name": "input-artifacts", "mountPath": "/in/data.txt", "subPath": "data"},
        {"name": "input-artifacts", "mountPath": "/in/page.html", "subPath": "page"},
        {"name": "var-run-argo", "mountPath": "/var/run/argo"},
    ]
    template = json.loads(
        next(
            e["value"]
            for e in container(pod, "init")["env"]
            if e["name"] == "ARGO_TEMPLATE"
        )
    )
    assert [a["name"] for a in template["inputs"]["artifacts"]] == ["data", "page"]


def test_input_artifact_under_a_user_volume_is_not_mounted_into_main() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  volumes: [{name: work, emptyDir: {}}]
  templates:
  - name: t
    inputs: {artifacts: [{name: data, path: /work/data.txt, raw: {data: x}}]}
    container: {image: busybox, command: [ls], volumeMounts: [{name: work, mountPath: /work}]}
"""
    )
    pod = argo_only(build(wf))
    assert container(pod, "main")["volumeMounts"] == [
        {"name": "work", "mountPath": "/work"},
        {"name": "var-run-argo", "mountPath": "/var/run/argo"},
    ]
    assert container(pod, "init")["volumeMounts"][:2] == [
        {"name": "input-artifacts", "mountPath": "/argo/inputs/artifacts"},
        {"name": "work", "mountPath": "/mainctrfs/work"},
    ]
    assert {"name": "work", "emptyDir": {}} in pod["spec"]["volumes"]


def test_sidecars_follow_main_and_are_wrapped_like_main() -> None:
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
    pod = argo_only(build(wf))
    assert [c["name"] for c in pod["spec"]["containers"]] == ["wait", "main", "proxy"]
    proxy = container(pod, "proxy")
    assert proxy["command"] == [
        "/var/run/argo/argoexec",
        "emissary",
        *LOG_OPTIONS,
        "--",
        "nginx",
    ]
    assert proxy["env"] == [
        value("ARGO_CONTAINER_NAME", "proxy"),
        *standard_env("wf", "wf"),
    ]


def test_commandless_container_uses_the_configured_images_index() -> None:
    wf = workflow(
        "spec: {entrypoint: t, templates: [{name: t, container: {image: app:1}}]}"
    )
    config = configuration.ControllerConfig(
        images={"app:1": {"entrypoint": ["/app"], "cmd": ["--serve"]}}
    )
    main = container(build(wf, config=config), "main")
    assert main["command"][-2:] == ["--", "/app"]
    assert main["args"] == ["--serve"]


def test_commandless_container_without_index_entry_fails_with_argos_message() -> None:
    wf = workflow(
        "spec: {entrypoint: t, templates: [{name: t, container: {image: app:1}}]}"
    )
    with pytest.raises(
        errors.PodBuildError, match='failed to look-up entrypoint/cmd for image "app:1"'
    ):
        build(wf)


def test_instance_id_labels_the_pod_and_reaches_executor_env(hello_world):
    pod = build(hello_world, config=configuration.ControllerConfig(instance_id="i1"))
    assert (
        pod["metadata"]["labels"]["workflows.argoproj.io/controller-instanceid"] == "i1"
    )
    assert value("ARGO_INSTANCE_ID", "i1") in container(pod, "wait")["env"]
    assert value("ARGO_INSTANCE_ID", "i1") in container(pod, "init")["env"]
    assert "ARGO_INSTANCE_ID" not in [e["name"] for e in container(pod, "main")["env"]]


def test_status_finalizer_is_added_only_when_enabled(hello_world):
    assert "finalizers" not in build(hello_world)["metadata"]
    pod = build(hello_world, settings=settings(status_capture_finalizer=True))
    assert pod["metadata"]["finalizers"] == ["workflows.argoproj.io/status"]


def test_pod_gc_annotation_carries_strategy_and_go_duration(hello_world):
    hello_world["spec"]["podGC"] = {
        "strategy": "OnPodSuccess",
        "deleteDelayDuration": "30s",
    }
    pod = build(hello_world)
    assert (
        pod["metadata"]["annotations"]["workflows.argoproj.io/pod-gc-strategy"]
        == "OnPodSuccess/30s"
    )
    hello_world["spec"]["podGC"] = {"strategy": "OnPodCompletion"}
    assert (
        build(hello_world)["metadata"]["annotations"][
            "workflows.argoproj.io/pod-gc-strategy"
        ]
        == "OnPodCompletion/5s"
    )


def test_active_deadline_is_the_smaller_of_template_and_workflow_deadline(hello_world):
    hello_world["spec"]["templates"][0]["activeDeadlineSeconds"] = 100
    assert build(hello_world)["spec"]["activeDeadlineSeconds"] == 100
    pod = build(hello_world, workflow_deadline=NOW + datetime.timedelta(seconds=40))
    assert pod["spec"]["activeDeadlineSeconds"] == 40
    assert (
        value("ARGO_DEADLINE", "2026-01-02T03:04:45Z") in container(pod, "main")["env"]
    )


def test_no_pod_is_built_once_the_workflow_deadline_has_passed(hello_world):
    assert (
        build(hello_world, workflow_deadline=NOW - datetime.timedelta(seconds=1))
        is None
    )


def test_on_exit_pods_are_labelled_and_ignore_the_workflow_deadline(hello_world):
    pod = build(
        hello_world, on_exit=True, workflow_deadline=NOW - datetime.timedelta(seconds=1)
    )
    assert pod["metadata"]["labels"]["workflows.argoproj.io/on-exit"] == "true"
    assert "activeDeadlineSeconds" not in pod["spec"]


def test_pod_spec_patch_is_applied_before_wrapping_and_adds_grace_env(hello_world):
    hello_world["spec"]["podSpecPatch"] = (
        '{"terminationGracePeriodSeconds": 5, "containers": [{"name": "main", "resources": {"limits": {"cpu": "1"}}}]}'
    )
    pod = build(hello_world)
    main = container(pod, "main")
    assert main["resources"] == {"limits": {"cpu": "1"}}
    assert value("ARGO_TERMINATION_GRACE_PERIOD_SECONDS", "5") in main["env"]
    assert (
        value("ARGO_TERMINATION_GRACE_PERIOD_SECONDS", "5")
        in container(pod, "wait")["env"]
    )


def test_unknown_volume_fails_the_build_with_argos_message() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [ls], volumeMounts: [{name: nope, mountPath: /x}]}
"""
    )
    with pytest.raises(
        errors.PodBuildError, match="volume 'nope' not found in workflow spec"
    ):
        build(wf)


def test_output_artifacts_get_the_default_repository_and_its_secrets() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    outputs: {artifacts: [{name: result, path: /tmp/result.txt}]}
    container: {image: busybox, command: [touch, /tmp/result.txt]}
"""
    )
    repository = {
        "s3": {
            "endpoint": "minio.wpc:9000",
            "bucket": "wpc",
            "insecure": True,
            "accessKeySecret": {"name": "s3-cred", "key": "accesskey"},
            "secretKeySecret": {"name": "s3-cred", "key": "secretkey"},
        }
    }
    pod = build(
        wf, config=configuration.ControllerConfig(artifact_repository=repository)
    )
    template = json.loads(
        next(
            e["value"]
            for e in container(pod, "init")["env"]
            if e["name"] == "ARGO_TEMPLATE"
        )
    )
    assert template["archiveLocation"] == {
        "archiveLogs": False,
        "s3": {**repository["s3"], "key": "wf/wf"},
    }
    assert {
        "name": "s3-cred",
        "secret": {
            "secretName": "s3-cred",
            "items": [
                {"key": "accesskey", "path": "accesskey"},
                {"key": "secretkey", "path": "secretkey"},
            ],
        },
    } in pod["spec"]["volumes"]
    secret_mount = {
        "name": "s3-cred",
        "mountPath": "/argo/secret/s3-cred",
        "readOnly": True,
    }
    assert secret_mount in container(pod, "wait")["volumeMounts"]
    assert secret_mount in container(pod, "init")["volumeMounts"]
