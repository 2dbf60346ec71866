"""The executor's settings: what the pod told it, read once from the environment.

`ExecutorSettings.from_env()` is the only place the executor reads
`os.environ` (the in-cluster API settings have their own `from_env` in
`kubeapi`). Everything downstream takes these values as parameters, so unit
tests build a settings object by hand.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from reference_impl import commission
from reference_impl import common
from reference_impl.executor import environment
from reference_impl.executor import faults
from reference_impl.executor.errors import ConfigError

_ZERO_DEADLINE = "0001-01-01T00:00:00Z"
DEFAULT_GRACE = 30.0


@dataclass(frozen=True)
class Timings:
    """Every interval of the protocol, in seconds; tests and faults change them."""

    heartbeat: float = common.HEARTBEAT_INTERVAL
    """Supervisor rewrite of RUNNING. Contract: 5 s."""
    ready_poll: float = common.EMISSARY_POLL_INTERVAL
    """Emissary poll of the status marker, between inotify wake-ups. Contract: 2 s."""
    never_appeared: float = common.MARKER_NEVER_APPEARED
    """Emissary gives up on an absent marker after this long. Contract: 30 s."""
    stale: float = common.MARKER_STALE
    """A RUNNING marker this old means a dead supervisor. Contract: 30 s."""
    file_poll: float = 0.25
    """Poll of signal and exitcode files; Argo uses inotify, this bounds the extra latency."""
    kill_after_sigkill: float = 10.0
    """How long a kill by file waits after writing 9. Contract: 10 s."""


@dataclass(frozen=True)
class ExecutorSettings:
    """What the controller put in the container's environment (contract 1.4)."""

    container_name: str = common.MAIN
    """ARGO_CONTAINER_NAME; `main` when unset, so a bare local run behaves like main."""
    node_id: str = ""
    """ARGO_NODE_ID: the name of the WorkflowTaskResult."""
    workflow_name: str = ""
    workflow_uid: str = ""
    pod_name: str = ""
    instance_id: str = ""
    """ARGO_INSTANCE_ID; empty means no instance-id label."""
    include_script_output: bool = False
    deadline: datetime.datetime | None = None
    """ARGO_DEADLINE; None for Go's zero time (no deadline)."""
    template_env: str | None = None
    """ARGO_TEMPLATE as given (JSON, `offloaded`, or None)."""
    wait_for_ready: bool = False
    """ARGO_WAIT_FOR_READY: the emissary must wait for the supervisor's READY."""
    grace_seconds: float = DEFAULT_GRACE
    """ARGO_TERMINATION_GRACE_PERIOD_SECONDS when > 0, else 30 s."""
    artifact_plugin_names: tuple[str, ...] = ()
    """ARGO_ARTIFACT_PLUGIN_NAMES: plugin sidecars wait/supervisor kill at the end."""
    fault: faults.Fault | None = None
    """WPC_REFERENCE_FAULT: the one deliberate deviation to commit, if any."""
    commission: commission.Fault | None = None
    """WPC_REFERENCE_FAULT naming an executor row of the commission table instead."""
    executor_binary: Path | None = None
    """The launcher to copy in `init`, with its bundle beside it (`launching`); set by
    the CLI from the launch arguments, None when not started by the launcher."""
    child_env: Mapping[str, str] = field(default_factory=dict)
    """The environment for the user's command (`environment.user_environment`)."""
    timings: Timings = field(default_factory=Timings)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ExecutorSettings:
        """Read the settings; ConfigError names the variable that cannot be parsed."""
        env = os.environ if environ is None else environ
        fault = faults.parse(env.get(faults.ENV_FAULT))
        timings = Timings()
        if fault is faults.Fault.SLOW_HEARTBEAT:
            timings = Timings(heartbeat=faults.SLOW_HEARTBEAT_INTERVAL)
        return cls(
            container_name=env.get(common.ENV_CONTAINER_NAME) or common.MAIN,
            node_id=env.get(common.ENV_NODE_ID, ""),
            workflow_name=env.get(common.ENV_WORKFLOW_NAME, ""),
            workflow_uid=env.get(common.ENV_WORKFLOW_UID, ""),
            pod_name=env.get(common.ENV_POD_NAME, ""),
            instance_id=env.get(common.ENV_INSTANCE_ID, ""),
            include_script_output=env.get(common.ENV_INCLUDE_SCRIPT_OUTPUT) == "true",
            deadline=_deadline(env.get(common.ENV_DEADLINE, "")),
            template_env=env.get(common.ENV_TEMPLATE),
            wait_for_ready=env.get(common.ENV_WAIT_FOR_READY) == "true",
            grace_seconds=_grace(env.get(common.ENV_GRACE_SECONDS, "")),
            artifact_plugin_names=tuple(
                n for n in env.get(common.ENV_ARTIFACT_PLUGIN_NAMES, "").split(",") if n
            ),
            fault=fault,
            commission=faults.commission_fault(env.get(faults.ENV_FAULT)),
            child_env=environment.user_environment(env),
            timings=timings,
        )


def _deadline(value: str) -> datetime.datetime | None:
    if not value or value == _ZERO_DEADLINE:
        return None
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:
        raise ConfigError(
            f"{common.ENV_DEADLINE}={value!r} is not an RFC 3339 time"
        ) from None


def _grace(value: str) -> float:
    # Argo ignores what it cannot parse and falls back to 30 s (executor.go).
    try:
        seconds = int(value)
    except ValueError:
        return DEFAULT_GRACE
    return float(seconds) if seconds > 0 else DEFAULT_GRACE
