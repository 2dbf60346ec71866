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

import pytest

from conformance.harness.stage import servers

"""Serves file.txt ($FILE_TEXT) and dir.tgz (a.txt, sub/b.txt) on port 8080."""
FILE_TEXT = "wpc input artifact: the same in every layout, for the comparison\n"
DIR_ENTRIES = {"a.txt": b"alpha\n", "sub/b.txt": b"beta\n"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.conformance(short_name="PodInputArtifacts", clauses=["WPC-POD-012"])
def test_input_artifacts_hold_the_served_content_when_main_starts(
    workflows,
    manifest,
    observations,
    namespace,
    images,
    http_server,
):
    text = FILE_TEXT
    base = servers.artifact_files(http_server, image=images["tools"], text=text)
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
