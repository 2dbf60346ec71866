"""Kubernetes clients, and the labels and names of every object the suite creates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MANAGED_BY = "app.kubernetes.io/managed-by"
SESSION = "wpc.dev/session-id"
TEST = "wpc.dev/test"
LAYOUT = "wpc.dev/layout"
INSTANCE = "wpc.dev/instance-id"
"""On a private controller instance's namespace: the instance it holds."""
IMPLEMENTATION = "wpc.dev/implementation"
"""On a private controller instance's namespace: the profile that installed it."""
MANAGED_BY_VALUE = "wpc"


def labels(*, session_id: str, short_name: str, layout: str) -> dict[str, str]:
    """The labels of everything a test creates (cleanup and leak audit use them)."""
    return {
        MANAGED_BY: MANAGED_BY_VALUE,
        SESSION: session_id,
        TEST: short_name,
        LAYOUT: layout,
    }


def kebab(short_name: str) -> str:
    """`ExecutorRetryBackoff` -> `executor-retry-backoff` (manifest and namespace names)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", short_name).lower()


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
