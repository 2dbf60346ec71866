"""We test these aspects against a real cluster running the reference controller (sketch,
`-m cluster`): a hello-world workflow succeeds and its pod ends labelled completed.

Needs: `kubectl apply -k reference_impl/manifests/overlays/<overlay>` done, the images
loaded, and a kubeconfig whose current context is the test cluster.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.cluster

WORKFLOW_TIMEOUT = 180.0
"""Seconds a hello-world workflow may take on a cold node (image loads, scheduling)."""


@pytest.fixture
def api() -> Any:
    kubernetes = pytest.importorskip("kubernetes")
    kubernetes.config.load_kube_config()
    return kubernetes.client


@pytest.fixture
def namespace(api: Any) -> Iterator[str]:
    name = f"wpc-ref-{uuid.uuid4().hex[:8]}"
    labels = {"app.kubernetes.io/managed-by": "wpc", "wpc.dev/session-id": name}
    core = api.CoreV1Api()
    core.create_namespace({"metadata": {"name": name, "labels": labels}})
    rbac = api.RbacAuthorizationV1Api()
    rbac.create_namespaced_role(
        name,
        {
            "metadata": {"name": "executor", "labels": labels},
            "rules": [
                {
                    "apiGroups": ["argoproj.io"],
                    "resources": ["workflowtaskresults"],
                    "verbs": ["create", "patch"],
                }
            ],
        },
    )
    rbac.create_namespaced_role_binding(
        name,
        {
            "metadata": {"name": "executor-default", "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": "executor",
            },
            "subjects": [{"kind": "ServiceAccount", "name": "default"}],
        },
    )
    yield name
    core.delete_namespace(name)


def test_hello_world_succeeds_and_its_pod_is_labelled_completed(api, namespace):
    from conformance import waiting

    custom = api.CustomObjectsApi()
    workflow = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {
            "name": "hello",
            "labels": {"app.kubernetes.io/managed-by": "wpc"},
        },
        "spec": {
            "entrypoint": "main",
            "templates": [
                {
                    "name": "main",
                    "container": {
                        "image": "wpc.local/testimage:0.1.0",
                        "command": ["true"],
                    },
                }
            ],
        },
    }
    custom.create_namespaced_custom_object(
        "argoproj.io", "v1alpha1", namespace, "workflows", workflow
    )

    def succeeded() -> Any:
        wf = custom.get_namespaced_custom_object(
            "argoproj.io", "v1alpha1", namespace, "workflows", "hello"
        )
        assert (wf.get("status") or {}).get("phase") == "Succeeded", wf.get("status")
        return wf

    waiting.until(
        succeeded,
        timeout=WORKFLOW_TIMEOUT,
        interval=1.0,
        describe="workflow hello to succeed",
    )

    def labelled() -> Any:
        pod = api.CoreV1Api().read_namespaced_pod("hello", namespace)
        assert pod.metadata.labels.get("workflows.argoproj.io/completed") == "true", (
            pod.metadata.labels
        )
        return pod

    waiting.until(
        labelled,
        timeout=60.0,
        interval=1.0,
        describe="pod hello to be labelled completed",
    )
