"""We test these aspects of the kustomize manifests, rendered with `kubectl kustomize`:
every overlay renders, images are pinned and pulled IfNotPresent, the ConfigMap parses
as the controller parses it (layout per overlay), the finalizer component sets the env,
and RBAC grants what the controller and executor call."""

from __future__ import annotations

import pathlib
import subprocess
from typing import Any

import pytest
import yaml

from reference_impl.controller.config import configuration
from tests import kubectl

Json = dict[str, Any]
MANIFESTS = pathlib.Path(__file__).parents[3] / "reference_impl" / "manifests"
KUBECTL = kubectl.find()
pytestmark = pytest.mark.skipif(KUBECTL is None, reason=kubectl.missing_reason())
OVERLAYS = {
    "legacy": False,
    "initless": True,
    "status-finalizer": False,
    "initless-status-finalizer": True,
}


def render(path: pathlib.Path) -> list[Json]:
    assert KUBECTL is not None
    output = subprocess.run(
        [KUBECTL, "kustomize", str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [d for d in yaml.safe_load_all(output.stdout) if d]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[Json]]:
    return {name: render(MANIFESTS / "overlays" / name) for name in OVERLAYS}


def one(objects: list[Json], kind: str, name: str | None = None) -> Json:
    return next(
        o
        for o in objects
        if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    )


@pytest.mark.parametrize("overlay", list(OVERLAYS))
def test_overlay_renders_the_whole_installation(rendered, overlay):
    kinds = sorted(o["kind"] for o in rendered[overlay])
    assert kinds == sorted(
        [
            "Namespace",
            "CustomResourceDefinition",
            "CustomResourceDefinition",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
        ]
    )


@pytest.mark.parametrize("overlay", list(OVERLAYS))
def test_configmap_selects_the_layout_of_the_overlay(rendered, overlay):
    config = configuration.parse(one(rendered[overlay], "ConfigMap")["data"])
    assert config.initless is OVERLAYS[overlay]
    assert config.executor_image(None) == "wpc.local/reference/argoexec:0.1.0"


def test_images_are_pinned_and_not_pulled(rendered):
    container = one(rendered["legacy"], "Deployment")["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert container["image"] == "wpc.local/reference/workflow-controller:0.1.0"
    assert container["imagePullPolicy"] == "IfNotPresent"
    text = yaml.safe_dump_all(rendered["legacy"])
    assert ":latest" not in text


def test_controller_has_a_writable_tmp(rendered):
    pod = one(rendered["legacy"], "Deployment")["spec"]["template"]["spec"]
    assert {"name": "tmp", "emptyDir": {}} in pod["volumes"]
    assert {"name": "tmp", "mountPath": "/tmp"} in pod["containers"][0]["volumeMounts"]


def test_status_finalizer_overlay_sets_the_env(rendered):
    env = one(rendered["status-finalizer"], "Deployment")["spec"]["template"]["spec"][
        "containers"
    ][0]["env"]
    assert {"name": "ARGO_POD_STATUS_CAPTURE_FINALIZER", "value": "true"} in env
    legacy_env = one(rendered["legacy"], "Deployment")["spec"]["template"]["spec"][
        "containers"
    ][0]["env"]
    assert all(e["name"] != "ARGO_POD_STATUS_CAPTURE_FINALIZER" for e in legacy_env)


def test_crds_keep_unknown_fields_without_a_status_subresource(rendered):
    crd = one(rendered["legacy"], "CustomResourceDefinition", "workflows.argoproj.io")
    version = crd["spec"]["versions"][0]
    assert version["name"] == "v1alpha1"
    assert version["subresources"] == {}
    assert version["schema"]["openAPIV3Schema"]["properties"]["status"][
        "x-kubernetes-preserve-unknown-fields"
    ]


def test_controller_rbac_covers_its_calls(rendered):
    rules = one(rendered["legacy"], "ClusterRole")["rules"]
    granted = {
        (g, r, v)
        for rule in rules
        for g in rule["apiGroups"]
        for r in rule["resources"]
        for v in rule["verbs"]
    }
    for needed in [
        ("", "pods", "patch"),
        ("", "pods/exec", "create"),
        ("", "configmaps", "watch"),
        ("argoproj.io", "workflows", "update"),
        ("argoproj.io", "workflowtaskresults", "deletecollection"),
        ("coordination.k8s.io", "leases", "update"),
        ("", "events", "create"),
    ]:
        assert needed in granted


def test_executor_role_only_creates_and_patches_task_results() -> None:
    objects = render(MANIFESTS / "executor")
    assert one(objects, "Role")["rules"] == [
        {
            "apiGroups": ["argoproj.io"],
            "resources": ["workflowtaskresults"],
            "verbs": ["create", "patch"],
        }
    ]
    assert one(objects, "RoleBinding")["subjects"] == [
        {"kind": "ServiceAccount", "name": "default"}
    ]


def test_second_instance_has_its_own_instance_id_configmap_and_lease() -> None:
    objects = render(MANIFESTS / "overlays" / "instance-initless")
    config = configuration.parse(
        one(objects, "ConfigMap", "workflow-controller-configmap-initless")["data"]
    )
    assert (config.instance_id, config.initless) == ("initless", True)
    deployment = one(objects, "Deployment", "workflow-controller-initless")
    assert deployment["spec"]["selector"]["matchLabels"] == {
        "app": "workflow-controller-initless"
    }
    assert deployment["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--namespace=$(CONTROLLER_NAMESPACE)",
        "--configmap=workflow-controller-configmap-initless",
        "--lease-name=workflow-controller-initless",
    ]
