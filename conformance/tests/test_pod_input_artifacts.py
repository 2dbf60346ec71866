"""PodInputArtifacts: input artifacts are in place with their exact content.

We test these aspects, on `manifests/pod-input-artifacts.yaml` with a file
artifact and a tar.gz directory artifact served over HTTP by the suite's own
server (a busybox httpd pod in the test namespace):

- when main's user command starts, the file artifact is readable at its path
  with exactly the served bytes, and the archive artifact is a directory holding
  exactly the archive's entries with their content (WPC-POD-012);
- whether each artifact path is a symlink is recorded as
  `artifacts.inputs.<name>.fileType`: legacy mounts artifacts with a subPath
  (`regular`), init-less symlinks them into `/argo/inputs/artifacts`
  (`symlink`), a difference declared in `conformance/divergences.yaml`.

Matrix: legacy and init-less; everything else about the run is compared across
layouts.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until

SERVER = "artifact-server"
SERVER_SCRIPT = """
mkdir -p /www /src/sub
printf '%s' "$FILE_TEXT" > /www/file.txt
printf 'alpha\\n' > /src/a.txt
printf 'beta\\n' > /src/sub/b.txt
tar -czf /www/dir.tgz -C /src a.txt sub
exec httpd -f -p 8080 -h /www
"""
"""Serves file.txt ($FILE_TEXT) and dir.tgz (a.txt, sub/b.txt) on port 8080."""
FILE_TEXT = "wpc input artifact: the same in every layout, for the comparison\n"
DIR_ENTRIES = {"a.txt": b"alpha\n", "sub/b.txt": b"beta\n"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def start_artifact_server(
    kube_clients: Any,
    *,
    namespace: str,
    labels: dict[str, str],
    image: str,
    text: str,
    timeout: float,
    interval: float,
) -> str:
    """Run the HTTP artifact server in the test namespace; return its base URL."""
    container = {
        "name": "httpd",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["sh", "-c", SERVER_SCRIPT],
        "env": [{"name": "FILE_TEXT", "value": text}],
        "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 1},
    }
    kube_clients.core.create_namespaced_pod(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": SERVER, "labels": labels},
            "spec": {"containers": [container], "terminationGracePeriodSeconds": 0},
        },
    )

    def ready() -> str | NotYet:
        status = kube_clients.core.read_namespaced_pod(SERVER, namespace).status
        conditions = {c.type: c.status for c in status.conditions or []}
        if conditions.get("Ready") == "True" and status.pod_ip:
            return str(status.pod_ip)
        return NotYet(f"phase {status.phase}, conditions {conditions}")

    address = until(
        ready,
        timeout=timeout,
        interval=interval,
        describe=f"artifact server {namespace}/{SERVER} to be ready",
    )
    return f"http://{address}:8080"


@pytest.mark.conformance(short_name="PodInputArtifacts", clauses=["WPC-POD-012"])
def test_input_artifacts_hold_the_served_content_when_main_starts(
    workflows,
    manifest,
    observations,
    kube_clients,
    namespace,
    test_labels,
    timeouts,
    images,
):
    text = FILE_TEXT
    base = start_artifact_server(
        kube_clients,
        namespace=namespace,
        labels=test_labels,
        image=images["tools"],
        text=text,
        timeout=timeouts.artifact_server_ready,
        interval=timeouts.poll_interval,
    )
    body = json.loads(json.dumps(manifest()).replace("http://ARTIFACT-SERVER", base))
    name = workflows.submit(body)
    workflow = workflows.wait_completed(name)

    node = workflow["status"]["nodes"].get(name, {})
    outputs = node.get("outputs") or {}
    params = {p["name"]: p.get("value") or "" for p in outputs.get("parameters") or []}
    types = params.get("types", "").split()
    comparable = copy.deepcopy(workflow)  # everything but the layout-specific report
    for param in (comparable["status"]["nodes"].get(name, {}).get("outputs") or {}).get(
        "parameters"
    ) or []:
        if param["name"] == "types":
            param["value"] = "<recorded as artifacts.inputs.*.fileType>"
    observations.record_workflow(comparable)
    for artifact, kind in zip(("file", "dir"), types, strict=False):
        observations.record(f"artifacts.inputs.{artifact}.fileType", kind)

    assert workflow["status"]["phase"] == "Succeeded", (
        f"workflow {name}: {workflow['status'].get('message')!r}"
    )
    expected_dir = "\n".join(
        [
            "a.txt",
            "sub",
            *(f"{sha256(data)}  {path}" for path, data in DIR_ENTRIES.items()),
        ]
    )
    assert params.get("file", "").split()[:1] == [sha256(text.encode())], (
        f"WPC-POD-012: sha256 of the file artifact as main read it: {params.get('file')!r}, "
        f"served: {sha256(text.encode())}"
    )
    assert params.get("dir", "").strip() == expected_dir, (
        f"WPC-POD-012: the directory artifact as main listed and hashed it:\n{params.get('dir')}\n"
        f"expected:\n{expected_dir}"
    )
