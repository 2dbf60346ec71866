"""Containers and environment variables the controller adds to every workflow pod.

Mirrors `workflow/controller/workflowpod.go` (`newExecContainer`, `createEnvVars`,
`getExecutorLogOpts`, the standard `envVars` of `build`). Containers are plain dicts in
the Kubernetes JSON shape, so a reader can compare them with `kubectl get pod -o json`.
"""

from __future__ import annotations

import datetime
from typing import Any

from reference_impl import common
from reference_impl.controller.config.configuration import ControllerConfig
from reference_impl.controller.formats import durations
from reference_impl.controller.formats import timestamps

Json = dict[str, Any]

ZERO_TIME = "0001-01-01T00:00:00Z"
"""Go's zero `time.Time` in RFC 3339: the value of `ARGO_DEADLINE` when there is none."""


def log_options(level: str) -> list[str]:
    """Return argoexec's logging flags, as Argo passes its own settings to the executor."""
    return ["--loglevel", level, "--log-format", "text", "--gloglevel", "0"]


def env(name: str, value: str) -> Json:
    """Return a literal environment variable."""
    return {"name": name, "value": value}


def field_env(name: str, field_path: str) -> Json:
    """Return an environment variable filled from the pod's own metadata (downward API)."""
    return {
        "name": name,
        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": field_path}},
    }


def mount(name: str, path: str, **extra: Any) -> Json:
    """Return a volume mount; `extra` holds optional fields such as `subPath` or `readOnly`."""
    return {"name": name, "mountPath": path, **extra}


VAR_RUN_ARGO_MOUNT = mount(common.VAR_RUN_ARGO_VOLUME, common.VAR_RUN_ARGO)
EXECUTOR_BIN_MOUNT = mount(
    common.EXECUTOR_BIN_VOLUME, common.EXECUTOR_BIN_MOUNT, readOnly=True
)


def executor_env(*, workflow: Json, config: ControllerConfig) -> list[Json]:
    """Return the variables of every executor container (`createEnvVars`)."""
    meta = workflow["metadata"]
    values = [
        field_env(common.ENV_POD_NAME, "metadata.name"),
        field_env(common.ENV_POD_UID, "metadata.uid"),
        env(common.ENV_WORKFLOW_NAME, meta["name"]),
        env(common.ENV_WORKFLOW_UID, meta.get("uid", "")),
    ]
    if config.instance_id:
        values.append(env(common.ENV_INSTANCE_ID, config.instance_id))
    values.extend(config.executor.get("env") or [])
    return values


def executor_container(
    name: str,
    *,
    workflow: Json,
    config: ControllerConfig,
    image: str,
    command: list[str],
) -> Json:
    """Return an executor container (`init`, `wait`, `supervisor`) with Argo's fields."""
    container: Json = {
        "name": name,
        "image": image,
        "command": command,
        "env": executor_env(workflow=workflow, config=config),
        "resources": dict(config.executor.get("resources") or {}),
        "imagePullPolicy": config.executor_pull_policy(),
    }
    if config.executor.get("args"):
        container["args"] = list(config.executor["args"])
    if config.executor.get("securityContext"):
        container["securityContext"] = dict(config.executor["securityContext"])
    return container


def standard_env(
    *,
    node_id: str,
    workflow_name: str,
    include_script_output: bool,
    deadline: datetime.datetime | None,
    progress_ticks: tuple[float, float],
) -> list[Json]:
    """Return the variables `build` adds to every container, in Argo's order."""
    values = [
        env(common.ENV_NODE_ID, node_id),
        env(
            common.ENV_INCLUDE_SCRIPT_OUTPUT,
            "true" if include_script_output else "false",
        ),
        env(common.ENV_DEADLINE, rfc3339(deadline)),
        env(common.ENV_WORKFLOW_NAME, workflow_name),
    ]
    patch_tick, file_tick = progress_ticks
    if patch_tick and file_tick:
        values += [
            env(common.ENV_PROGRESS_FILE, common.PROGRESS_FILE),
            env(common.ENV_PROGRESS_PATCH_TICK, durations.format_go(patch_tick)),
            env(common.ENV_PROGRESS_FILE_TICK, durations.format_go(file_tick)),
        ]
    return values


def rfc3339(moment: datetime.datetime | None) -> str:
    """Return `moment` like Go's `time.RFC3339` in UTC, or Go's zero time for None."""
    return ZERO_TIME if moment is None else timestamps.format_time(moment)


def is_argo_sidecar(name: str) -> bool:
    """Return whether a regular container is Argo's own (`wait`, `supervisor`, plugin sidecars)."""
    return name in (common.WAIT, common.SUPERVISOR) or name.startswith(
        common.ARTIFACT_PLUGIN_PREFIX
    )
