"""ValidateInitlessArtifactMount: an artifact path above a volume mount fails, podless.

We test these aspects: in the initless layout, a container template whose input
artifact `data` is staged at `/data` while an emptyDir is mounted at
`/data/cache` gets a node `Error` whose message contains `input artifact
"data" path "/data" is an ancestor of volume mount` and ends with `this is not
supported in init-less pod mode because staging the artifact would clear the
mounted volume`, and no pod is created for it (WPC-VALIDATE-008).

Matrix: initless only.
"""

from __future__ import annotations

import pytest

SUFFIX = (
    "this is not supported in init-less pod mode because staging the artifact "
    "would clear the mounted volume"
)


@pytest.mark.conformance(
    short_name="ValidateInitlessArtifactMount",
    clauses=["WPC-VALIDATE-008"],
    features=["INPUT_ARTIFACTS_HTTP"],
)
def test_initless_input_artifact_above_a_volume_mount_fails_without_a_pod(
    workflows, manifest, kube_clients, namespace
):
    name = workflows.submit(manifest())

    workflow = workflows.wait_completed(name)
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    node = workflow["status"]["nodes"][name]
    message = node.get("message", "")
    summary = (
        f"WPC-VALIDATE-008: node {node['phase']} {message!r}, "
        f"pods {[p.metadata.name for p in pods]}"
    )
    assert node["phase"] == "Error", summary
    assert (
        'input artifact "data" path "/data" is an ancestor of volume mount' in message
    ), summary
    assert message.endswith(SUFFIX), summary
    assert not pods, summary
