"""The objects the benchmark creates: its namespace, the executor RBAC, the workflows.

Everything carries `app.kubernetes.io/managed-by=wpc` and `wpc.dev/session-id`;
workflows also carry the controller instance ID that selects the layout, and
pass the session labels on to their pods through `spec.podMetadata`.
"""

from __future__ import annotations

from typing import Any

from reference_impl import common
from reference_impl.bench import markers

Json = dict[str, Any]

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "wpc"
SESSION = "wpc.dev/session-id"
LAYOUT = "wpc.dev/layout"
EXECUTOR_ROLE = "wpc-executor"
MAIN = common.MAIN


def labels(session_id: str) -> dict[str, str]:
    """The labels of everything this run creates."""
    return {MANAGED_BY: MANAGED_BY_VALUE, SESSION: session_id}


def session_selector(session_id: str) -> str:
    """Label selector for everything this run created."""
    return f"{MANAGED_BY}={MANAGED_BY_VALUE},{SESSION}={session_id}"


def namespace(name: str, session_id: str) -> Json:
    """The bench namespace."""
    return {"metadata": {"name": name, "labels": labels(session_id)}}


def executor_role(session_id: str) -> Json:
    """The Role the executor needs: create and patch its task results."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": EXECUTOR_ROLE, "labels": labels(session_id)},
        "rules": [
            {
                "apiGroups": [common.GROUP],
                "resources": ["workflowtaskresults"],
                "verbs": ["create", "patch"],
            }
        ],
    }


def executor_binding(name: str, session_id: str) -> Json:
    """Binds the executor Role to the namespace's default ServiceAccount."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": EXECUTOR_ROLE, "labels": labels(session_id)},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": EXECUTOR_ROLE,
        },
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": name}],
    }


def workflow(*, layout: str, instance_id: str, session_id: str, image: str) -> Json:
    """A one-pod workflow whose main container prints the start marker and exits."""
    run_labels = {**labels(session_id), LAYOUT: layout}
    return {
        "apiVersion": common.API_VERSION,
        "kind": "Workflow",
        "metadata": {
            "generateName": f"wpc-bench-{layout}-",
            "labels": {**run_labels, common.LABEL_INSTANCE_ID: instance_id},
        },
        "spec": {
            "entrypoint": "main",
            "podMetadata": {"labels": run_labels},
            "templates": [
                {
                    "name": "main",
                    "container": {
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["sh", "-c"],
                        "args": [markers.SCRIPT],
                    },
                }
            ],
        },
    }
