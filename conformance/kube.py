"""Kubernetes clients and the labels every object the suite creates carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MANAGED_BY = "app.kubernetes.io/managed-by"
SESSION = "wpc.dev/session-id"
TEST = "wpc.dev/test"
LAYOUT = "wpc.dev/layout"
MANAGED_BY_VALUE = "wpc"

WORKFLOW_GROUP = "argoproj.io"
WORKFLOW_VERSION = "v1alpha1"
STATUS_FINALIZER = "workflows.argoproj.io/status"


def labels(*, session_id: str, short_name: str, layout: str) -> dict[str, str]:
    """The labels of everything a test creates (cleanup and leak audit use them)."""
    return {
        MANAGED_BY: MANAGED_BY_VALUE,
        SESSION: session_id,
        TEST: short_name,
        LAYOUT: layout,
    }


def session_selector(session_id: str) -> str:
    """Label selector matching everything this run created."""
    return f"{MANAGED_BY}={MANAGED_BY_VALUE},{SESSION}={session_id}"


@dataclass(frozen=True)
class Clients:
    """The typed API groups the suite uses, over one ApiClient."""

    api: Any
    core: Any
    rbac: Any
    custom: Any


def connect(kubeconfig: str) -> Clients:
    """Clients for the cluster in `kubeconfig` (no global default configuration)."""
    from kubernetes import client
    from kubernetes import config

    api = config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    return Clients(
        api=api,
        core=client.CoreV1Api(api),
        rbac=client.RbacAuthorizationV1Api(api),
        custom=client.CustomObjectsApi(api),
    )
