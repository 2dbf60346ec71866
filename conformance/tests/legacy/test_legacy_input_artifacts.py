"""LegacyInputArtifacts: how the legacy pod mounts input artifacts.

We test these aspects, on `manifests/legacy-input-artifacts.yaml` (three raw
input artifacts, one of them at a path on a user volume):

- the pod has the emptyDir volume `input-artifacts`, `init` mounts it at
  `/argo/inputs/artifacts`, and main mounts it once per artifact at the
  artifact's path with the artifact's name as subPath, except for the artifact
  on the user volume, at whose path main mounts nothing (WPC-LEGACY-008);
- main reads all three artifacts (the node succeeds with their content).

Matrix: legacy only.
"""

from __future__ import annotations

import pytest

from conformance.harness.workload import shapes

MOUNTED = {"/inputs/file.txt": "file", "/inputs/deep/nested.txt": "nested"}
ON_VOLUME = "/data/onvolume.txt"


@pytest.mark.conformance(short_name="LegacyInputArtifacts", clauses=["WPC-LEGACY-008"])
def test_legacy_main_mounts_each_input_artifact_with_a_subpath(
    workflows, manifest, observations
):
    shape = shapes.completed(workflows, manifest(), observations=observations)
    volumes, mounts = shape.volumes, shape.mounts
    node, params = shape.node, shape.parameters
    checks = [
        (
            "input-artifacts is an emptyDir",
            "emptyDir" in volumes.get("input-artifacts", {}),
            True,
        ),
        (
            "volume init mounts at /argo/inputs/artifacts",
            mounts.get("init", {}).get("/argo/inputs/artifacts", {}).get("name"),
            "input-artifacts",
        ),
        (
            "main's mounts at the artifact paths (volume, subPath)",
            {
                p: [
                    mounts.get("main", {}).get(p, {}).get(k)
                    for k in ("name", "subPath")
                ]
                for p in [*MOUNTED, ON_VOLUME]
            },
            {
                **{p: ["input-artifacts", a] for p, a in MOUNTED.items()},
                ON_VOLUME: [None, None],
            },
        ),
        (
            "node phase and what main read",
            [node.get("phase"), (params.get("all") or "").strip().split("\n")],
            [
                "Succeeded",
                ["file artifact", "nested artifact", "artifact on a user volume"],
            ],
        ),
    ]
    problems = [
        f"WPC-LEGACY-008: {what}: expected {want!r}, got {got!r}"
        for what, got, want in checks
        if got != want
    ]
    assert not problems, f"pod {shape.name}:\n" + "\n".join(problems)
