"""The kustomize manifests render and agree with the Python names.

We test these aspects:
- `kubectl kustomize` renders the directory; everything lands in `argo`,
  carries the wpc labels, uses versioned images with IfNotPresent;
- the S3 Deployment/Service (port 9000), its credentials Secret (accessKey,
  secretKey) wired into the server's root-user variables, and the bucket
  created by the init container where the server looks for buckets;
- the HTTP artifact server (port 8080) runs busybox httpd over the ConfigMap
  whose known file has the content `names` promises;
- the artifact-repository component merges Argo's `artifactRepository` into
  an existing workflow-controller-configmap, equal to `default_repository()`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from reference_impl import common
from reference_impl.artifacts import names
from reference_impl.artifacts import repositories
from tests import kubectl

MANIFESTS = Path(names.__file__).parent / "manifests"
KUBECTL = kubectl.find()

pytestmark = pytest.mark.skipif(KUBECTL is None, reason=kubectl.missing_reason())


def _render(directory: Path) -> list[dict[str, Any]]:
    assert KUBECTL is not None
    out = subprocess.run(
        [KUBECTL, "kustomize", str(directory)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


@pytest.fixture(scope="module")
def objects() -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["kind"], o["metadata"]["name"]): o for o in _render(MANIFESTS)}


def _pod(objects: dict[tuple[str, str], dict[str, Any]], name: str) -> Any:
    return objects["Deployment", name]["spec"]["template"]["spec"]


def test_everything_is_in_argo_with_the_wpc_labels(objects):
    assert set(objects) == {
        ("Deployment", names.S3_SERVICE),
        ("Service", names.S3_SERVICE),
        ("Secret", names.CREDENTIALS_SECRET),
        ("Deployment", names.HTTP_SERVICE),
        ("Service", names.HTTP_SERVICE),
        ("ConfigMap", "wpc-http-artifacts-files"),
    }
    for obj in objects.values():
        assert obj["metadata"]["namespace"] == names.NAMESPACE
        assert obj["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "wpc"


def test_images_are_versioned_and_never_pulled(objects):
    for name in (names.S3_SERVICE, names.HTTP_SERVICE):
        pod = _pod(objects, name)
        for container in pod.get("initContainers", []) + pod["containers"]:
            assert not container["image"].endswith(":latest")
            assert container["imagePullPolicy"] == "IfNotPresent"
    assert _pod(objects, names.S3_SERVICE)["containers"][0]["image"] == names.IMAGE
    assert (
        _pod(objects, names.HTTP_SERVICE)["containers"][0]["image"] == common.TEST_IMAGE
    )


def test_the_s3_server_gets_its_keys_and_its_bucket(objects):
    secret = objects["Secret", names.CREDENTIALS_SECRET]
    assert set(secret["stringData"]) == {names.ACCESS_KEY_KEY, names.SECRET_KEY_KEY}
    pod = _pod(objects, names.S3_SERVICE)
    (server,) = pod["containers"]
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in server["env"]}
    assert refs["ROOT_ACCESS_KEY_ID"] == {
        "name": names.CREDENTIALS_SECRET,
        "key": names.ACCESS_KEY_KEY,
    }
    assert refs["ROOT_SECRET_ACCESS_KEY"] == {
        "name": names.CREDENTIALS_SECRET,
        "key": names.SECRET_KEY_KEY,
    }
    assert server["args"][-1] == "/data/buckets"
    (init,) = pod["initContainers"]
    assert init["image"] == common.TEST_IMAGE
    assert f"/data/buckets/{names.BUCKET}" in init["command"]
    (port,) = objects["Service", names.S3_SERVICE]["spec"]["ports"]
    assert port["port"] == names.S3_PORT


def test_the_http_server_serves_the_configmap_with_the_known_file(objects):
    (httpd,) = _pod(objects, names.HTTP_SERVICE)["containers"]
    command = httpd["command"]
    assert command[:2] == ["/bin/busybox", "httpd"]
    assert command[command.index("-p") + 1] == str(names.HTTP_PORT)
    assert command[command.index("-h") + 1] == "/www"
    assert httpd["volumeMounts"][0]["mountPath"] == "/www"
    (port,) = objects["Service", names.HTTP_SERVICE]["spec"]["ports"]
    assert port["port"] == names.HTTP_PORT
    files = objects["ConfigMap", "wpc-http-artifacts-files"]["data"]
    assert files[names.HTTP_KNOWN_FILE] == names.HTTP_KNOWN_CONTENT


def test_the_component_merges_the_artifact_repository_into_argos_configmap(tmp_path):
    (tmp_path / "cm.yaml").write_text(
        yaml.safe_dump({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": common.CONFIGMAP_NAME, "namespace": names.NAMESPACE},
            "data": {"executor": "imagePullPolicy: IfNotPresent\n"},
        })
    )  # fmt: skip
    component = MANIFESTS / "artifact-repository"
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump({
            "resources": ["cm.yaml"],
            "components": [os.path.relpath(component, tmp_path)],
        })
    )  # fmt: skip
    (configmap,) = _render(tmp_path)
    assert configmap["data"]["executor"] == "imagePullPolicy: IfNotPresent\n"
    merged = yaml.safe_load(configmap["data"]["artifactRepository"])
    assert merged == repositories.default_repository()
