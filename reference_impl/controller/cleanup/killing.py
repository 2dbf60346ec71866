"""Which command kills a container, and which containers `terminateContainers` signals.

The controller cannot send a signal into a container directly; like Argo
(`workflow/signal/signal.go` `killCommand`, `workflow/controller/pod/queue.go`
`signalContainers`) it execs a kill command in every Running container: SIGTERM first, then
SIGKILL after the pod's `terminationGracePeriodSeconds` (30 s when unset). This is how an
injected sidecar the controller knows nothing about is stopped (contract notes 5.2).
"""

from __future__ import annotations

import json
import signal
from typing import Any

from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.faults import Fault

Json = dict[str, Any]

DEFAULT_GRACE_SECONDS = 30.0
SIGTERM = int(signal.SIGTERM)
SIGKILL = int(signal.SIGKILL)


def kill_command(
    pod: Json, container: str, signal_number: int, *, fault: Fault | None = None
) -> list[str]:
    """Return the command that delivers `signal_number` to PID 1 of `container`.

    Order: `wait`/`supervisor` use argoexec from PATH; a container mounting `/argo-bin` uses
    the image-volume binary; one mounting `/var/run/argo` the copied binary; anything else
    `/bin/sh -c "kill -N 1"`. The annotation `workflows.argoproj.io/kill-cmd-<container>`
    (a JSON array where `%d` stands for the signal) overrides all of them.
    Raises WorkflowError when the annotation is not a JSON array of strings.

    `fault`: under `kill-default-not-pid1` the last resort is `kill -N -1`, which
    signals every process of the container but its PID 1; under `kill-cmd-ignored`
    the annotation is not read.
    """
    command = ["/bin/sh", "-c", "kill -%d 1"]
    if fault is Fault.KILL_DEFAULT_NOT_PID1:
        command = ["/bin/sh", "-c", "kill -%d -1"]
    if container in (common.WAIT, common.SUPERVISOR):
        command = ["argoexec", "kill", "%d", "1"]
    else:
        for spec in (pod.get("spec") or {}).get("containers") or []:
            if spec.get("name") != container:
                continue
            paths = {m.get("mountPath") for m in spec.get("volumeMounts") or []}
            if common.EXECUTOR_BIN_MOUNT in paths:
                command = [common.EMISSARY_INITLESS, "kill", "%d", "1"]
            elif common.VAR_RUN_ARGO in paths:
                command = [common.EMISSARY_LEGACY, "kill", "%d", "1"]
    annotation = ((pod.get("metadata") or {}).get("annotations") or {}).get(
        common.ANNOTATION_KILL_CMD_PREFIX + container
    )
    if annotation is not None and fault is not Fault.KILL_CMD_IGNORED:
        try:
            command = json.loads(annotation)
        except json.JSONDecodeError as err:
            raise errors.WorkflowError(
                f"failed to unmarshall kill command annotation {annotation!r}: {err}"
            ) from err
        if not isinstance(command, list) or not all(
            isinstance(part, str) for part in command
        ):
            raise errors.WorkflowError(
                f"failed to unmarshall kill command annotation {annotation!r}: not a list of strings"
            )
    return [part.replace("%d", str(signal_number)) for part in command]


def running_containers(pod: Json) -> list[str]:
    """Return the names of the pod's regular containers that are Running now."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return [
        c["name"] for c in statuses if (c.get("state") or {}).get("running") is not None
    ]


def grace_seconds(pod: Json) -> float:
    """Return how long to wait between SIGTERM and SIGKILL for this pod."""
    value = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return DEFAULT_GRACE_SECONDS if value is None else float(value)
