"""Refuse a pod whose container could not even start: exec's limit on one string.

Linux refuses an `execve` argument or environment entry longer than 131072 bytes with
its NUL (MAX_ARG_STRLEN, "argument list too long"). Upstream's `createWorkflowPod`
(workflow/controller/workflowpod.go) moves an `ARGO_TEMPLATE` value over 131072 bytes and,
since v4.0.1 and v4.1.0 (fix a739d3c6), a container's `args` whose JSON exceeds 131072
bytes into a ConfigMap named like the pod, which the executor reads back (an argument
still over the limit reaches the command as `@<file>`). The reference controller does not
implement that offloading (the spec's LARGE_ARGUMENTS feature, which it does not claim):
it fails the node with a message saying so instead of creating a pod that cannot start.
"""

from __future__ import annotations

from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.formats import gojson

Json = dict[str, Any]
LIMIT = 131072
"""Upstream's `MaxEnvVarLen`; also Linux's MAX_ARG_STRLEN (bytes, the NUL included)."""
_ENV_ENTRY = f"{common.ENV_TEMPLATE}="
_UNSUPPORTED = "is not supported by the reference controller"
"""The words of `templates.checks.coverage.UNSUPPORTED` (pods sits below templates)."""


def check(pod: Json, template_name: str) -> None:
    """Raise PodBuildError when `pod` needs upstream's ConfigMap offloading to start."""
    spec = pod["spec"]
    for container in spec.get("containers") or []:
        name = str(container.get("name", ""))
        if name in (common.WAIT, common.SUPERVISOR) or name.startswith(
            common.ARTIFACT_PLUGIN_PREFIX
        ):
            continue
        args = container.get("args")
        if args and len(gojson.dumps(args).encode()) > LIMIT:
            raise errors.PodBuildError(
                f"templates.{template_name}: the args of container {name} are longer "
                f"than {LIMIT} bytes as JSON; moving them to a ConfigMap "
                f"(ARGO_CONTAINER_ARGS_FILE) {_UNSUPPORTED}"
            )
    for container in [*(spec.get("initContainers") or []), *spec["containers"]]:
        for env in container.get("env") or []:
            if env.get("name") != common.ENV_TEMPLATE:
                continue
            if len((_ENV_ENTRY + str(env.get("value", ""))).encode()) + 1 > LIMIT:
                raise errors.PodBuildError(
                    f"templates.{template_name}: the template is too long for "
                    f"{common.ENV_TEMPLATE} (over {LIMIT} bytes); moving it to a "
                    f"ConfigMap {_UNSUPPORTED}"
                )
