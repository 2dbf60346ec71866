"""Reference-only additions: the whole delta between Argo's pod shape and ours.

Argo's argoexec is a static Go binary. The reference executor is a Python program packed
into a static executable that unpacks itself into `$TMPDIR` before any Python runs, so it
needs a writable, exec-able TMPDIR in every container it runs in (see
`shared/reference/emissary-packaging-notes.md` and the "Executor temp directory" part of
`reference_impl/executor/protocol.py`). Everything the reference controller adds to a pod
for that reason, or for the deliberate-fault switch, is added by `apply` below and nowhere
else; a vendor comparing pod shapes can ignore exactly these fields, on every container
that runs argoexec (Argo's `init`, `wait`, `supervisor`, and every emissary-wrapped user
container):

- env `TMPDIR=/var/run/argo` and `WPC_EXECUTOR_TMPDIR=/var/run/argo` (the emptyDir every
  container mounts; the second marks the first as set for the executor only);
- a `TMPDIR` the container declared itself is renamed `WPC_USER_TMPDIR`, so the emissary
  can give the user's command its own value back;
- env `WPC_REFERENCE_FAULT=<name>`, only when the controller itself runs with a fault, so
  executor-side faults can be switched per controller.
"""

from __future__ import annotations

from typing import Any

from reference_impl import common
from reference_impl.controller.pods import containers

Json = dict[str, Any]


def runs_executor(container: Json) -> bool:
    """Return whether argoexec runs in this container (Argo's own or emissary-wrapped)."""
    if container["name"] in (common.INIT, common.WAIT, common.SUPERVISOR):
        return True
    command = container.get("command") or []
    return bool(command) and command[0] in (
        "argoexec",
        common.EMISSARY_LEGACY,
        common.EMISSARY_INITLESS,
    )


def apply(pod: Json, *, fault_passthrough: str) -> None:
    """Add the reference executor's needs to every container that runs argoexec."""
    spec = pod["spec"]
    for container in [*(spec.get("initContainers") or []), *spec["containers"]]:
        if not runs_executor(container):
            continue
        values = container.setdefault("env", [])
        for value in values:
            if value.get("name") == "TMPDIR":
                value["name"] = common.ENV_USER_TMPDIR
        values.append(containers.env("TMPDIR", common.EXECUTOR_TMPDIR))
        values.append(
            containers.env(common.ENV_EXECUTOR_TMPDIR, common.EXECUTOR_TMPDIR)
        )
        if fault_passthrough:
            values.append(containers.env(common.ENV_REFERENCE_FAULT, fault_passthrough))
