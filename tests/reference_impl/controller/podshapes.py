"""Expected pod pieces written from the contract notes (argo-pod-contract.md 1.1-1.4, 2.2, 2.5)."""

from __future__ import annotations

import copy
from typing import Any

Json = dict[str, Any]

LOG_OPTIONS = ["--loglevel", "info", "--log-format", "text", "--gloglevel", "0"]
EXECUTOR_IMAGE = "wpc.local/reference/argoexec:0.1.0"
REFERENCE_ONLY_ENV = {
    "TMPDIR",
    "WPC_EXECUTOR_TMPDIR",
    "WPC_REFERENCE_FAULT",
    "WPC_USER_TMPDIR",
}


def field(name: str, path: str) -> Json:
    return {
        "name": name,
        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": path}},
    }


def value(name: str, text: str) -> Json:
    return {"name": name, "value": text}


def executor_env(workflow: str = "hello", uid: str = "uid-1") -> list[Json]:
    return [
        field("ARGO_POD_NAME", "metadata.name"),
        field("ARGO_POD_UID", "metadata.uid"),
        value("ARGO_WORKFLOW_NAME", workflow),
        value("ARGO_WORKFLOW_UID", uid),
    ]


def standard_env(
    node_id: str = "hello", workflow: str = "hello", script_output: str = "false"
) -> list[Json]:
    return [
        value("ARGO_NODE_ID", node_id),
        value("ARGO_INCLUDE_SCRIPT_OUTPUT", script_output),
        value("ARGO_DEADLINE", "0001-01-01T00:00:00Z"),
        value("ARGO_WORKFLOW_NAME", workflow),
        value("ARGO_PROGRESS_FILE", "/var/run/argo/progress"),
        value("ARGO_PROGRESS_PATCH_TICK_DURATION", "1m0s"),
        value("ARGO_PROGRESS_FILE_TICK_DURATION", "3s"),
    ]


def argo_only(pod: Json) -> Json:
    """Return the pod without the reference-only additions (see reference_additions)."""
    stripped = copy.deepcopy(pod)
    for container in [
        *(stripped["spec"].get("initContainers") or []),
        *stripped["spec"]["containers"],
    ]:
        container["env"] = [
            e for e in container.get("env") or [] if e["name"] not in REFERENCE_ONLY_ENV
        ]
    return stripped


def container(pod: Json, name: str) -> Json:
    spec = pod["spec"]
    return next(
        c
        for c in [*(spec.get("initContainers") or []), *spec["containers"]]
        if c["name"] == name
    )


def env_names(c: Json) -> list[str]:
    return [e["name"] for e in c.get("env") or []]
