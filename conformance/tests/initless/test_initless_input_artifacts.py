"""InitlessInputArtifacts: how the init-less emissary stages input artifacts.

We test these aspects, on the three pods of `manifests/initless-input-artifacts.yaml`
(artifacts from raw data and from the suite's own HTTP server, a busybox httpd
pod in the test namespace):

- `supervisor` and main mount the whole `input-artifacts` volume, read-write and
  without subPath, at `/argo/inputs/artifacts`; main mounts nothing at an
  artifact's path; when the user command starts, each artifact path is a
  symlink to `/argo/inputs/artifacts/<name>`, missing parent directories
  created (WPC-INITLESS-008);
- with a directory artifact staged at main's `workingDir`, the user command's
  `.` holds the artifact's entries, not the directory staging replaced
  (WPC-INITLESS-009);
- with `readOnlyRootFilesystem` and an artifact outside any volume, main exits
  65 without running the user command (which would exit 7), its termination
  message naming the artifact in double quotes (WPC-INITLESS-010).

Matrix: init-less only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.harness.stage import servers

"""Serves file.txt ($FILE_TEXT) and dir.tgz (a.txt, sub/b.txt) on port 8080."""


def mounts_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["mountPath"]: m for m in container.get("volumeMounts") or []}


@pytest.mark.conformance(
    short_name="InitlessInputArtifacts",
    clauses=["WPC-INITLESS-008", "WPC-INITLESS-009", "WPC-INITLESS-010"],
)
def test_initless_main_symlinks_artifacts_reenters_workdir_and_fails_on_read_only_root(
    workflows, scene, observations, images, http_server
):
    base = servers.artifact_files(http_server, image=images["tools"], text="")
    body = json.loads(
        json.dumps(scene.manifest()).replace("http://ARTIFACT-SERVER", base)
    )
    name = workflows.submit(body)
    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    nodes = workflow["status"]["nodes"]
    pods, params = {}, {}
    listing = scene.clients.core.list_namespaced_pod(
        scene.namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    )
    for pod in map(scene.clients.api.sanitize_for_serialization, listing.items):
        node = nodes.get(
            (pod["metadata"].get("annotations") or {}).get(
                "workflows.argoproj.io/node-id"
            ),
            {},
        )
        template = node.get("templateName", pod["metadata"]["name"])
        outputs = node.get("outputs") or {}
        pods[template] = pod
        params[template] = [
            node.get("phase"),
            {
                p["name"]: (p.get("value") or "").strip()
                for p in outputs.get("parameters") or []
            },
        ]
    assert {"staged", "workdir", "readonly"} <= set(pods), (
        f"pods by template: {sorted(pods)}"
    )
    staged = {c["name"]: mounts_of(c) for c in pods["staged"]["spec"]["containers"]}
    readonly = {
        s["name"]: (s.get("state") or {}).get("terminated") or {}
        for s in pods["readonly"].get("status", {}).get("containerStatuses") or []
    }.get("main", {})
    checks = [
        (
            "WPC-INITLESS-008",
            "mounts at /argo/inputs/artifacts of supervisor and main (volume, subPath, readOnly)",
            {
                n: [
                    staged.get(n, {}).get("/argo/inputs/artifacts", {}).get(k)
                    for k in ("name", "subPath")
                ]
                + [
                    bool(
                        staged.get(n, {})
                        .get("/argo/inputs/artifacts", {})
                        .get("readOnly")
                    )
                ]
                for n in ("supervisor", "main")
            },
            {n: ["input-artifacts", None, False] for n in ("supervisor", "main")},
        ),
        (
            "WPC-INITLESS-008",
            "main's mounts at the artifact paths",
            sorted(
                set(staged.get("main", {}))
                & {"/inputs/deep/er/file.txt", "/inputs/dir"}
            ),
            [],
        ),
        (
            "WPC-INITLESS-008",
            "node phase and readlink of the artifact paths from the user command",
            params["staged"],
            [
                "Succeeded",
                {"links": "/argo/inputs/artifacts/file\n/argo/inputs/artifacts/dir"},
            ],
        ),
        (
            "WPC-INITLESS-009",
            "node phase and `ls -A .` in the workingDir the artifact replaced",
            params["workdir"],
            ["Succeeded", {"listing": "a.txt\nsub"}],
        ),
        (
            "WPC-INITLESS-010",
            "main's exit code under readOnlyRootFilesystem / message names the artifact",
            [readonly.get("exitCode"), '"ro-art"' in (readonly.get("message") or "")],
            [65, True],
        ),
    ]
    problems = [
        f"{clause}: {what}: expected {want!r}, got {got!r}"
        for clause, what, got, want in checks
        if got != want
    ]
    assert not problems, "\n".join(problems) + f"\nreadonly main terminated: {readonly}"
