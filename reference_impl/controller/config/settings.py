"""Process settings of the reference controller: flags plus environment, fixed at start-up.

Everything the controller reads from its environment is read here, in
`ControllerSettings.from_env`, once, at run time; the rest of the code receives the frozen
settings object and never looks at `os.environ`. Variable names and defaults follow Argo's
`docs/environment-variables.md` where Argo has the variable.
"""

from __future__ import annotations

import dataclasses
import os
import socket
from collections.abc import Mapping

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.formats import durations


@dataclasses.dataclass(frozen=True)
class ControllerSettings:
    """What one controller process was started with."""

    namespace: str = common.CONTROLLER_NAMESPACE
    """Namespace holding the controller ConfigMap and the leader Lease (flag `--namespace`)."""
    configmap: str = common.CONFIGMAP_NAME
    """Name of the controller ConfigMap (flag `--configmap`), so instances can differ."""
    executor_image: str | None = None
    """Executor image override (flag `--executor-image`); beats `executor.image` in the ConfigMap."""
    lease_name: str | None = None
    """Leader Lease name (flag `--lease-name`); default `workflow-controller[-<instanceID>]` as Argo."""
    kubeconfig: str | None = None
    """Kubeconfig for out-of-cluster runs (flag `--kubeconfig`); in-cluster config when unset."""
    status_capture_finalizer: bool = False
    """`ARGO_POD_STATUS_CAPTURE_FINALIZER=true`: add and manage the pod status finalizer."""
    fault: faults.Fault | None = None
    """Controller-side deliberate fault (`WPC_REFERENCE_FAULT`); None in a correct controller."""
    commission: commission.Fault | None = None
    """Controller-side fault of commission (`reference_impl/commission_table.py`), if any."""
    fault_passthrough: str = ""
    """The raw `WPC_REFERENCE_FAULT` value, passed to executor containers when non-empty."""
    requeue_seconds: float = 10.0
    """`DEFAULT_REQUEUE_TIME`: how soon an unfinished workflow is looked at again (Argo: 10s)."""
    recently_started_pod_seconds: float = 10.0
    """`RECENTLY_STARTED_POD_DURATION`: grace before a missing pod means `pod deleted`."""
    recently_deleted_pod_seconds: float = 120.0
    """`RECENTLY_DELETED_POD_DURATION`: wait for a task result after its pod vanished."""
    task_result_timeout_seconds: float = 600.0
    """`TASK_RESULT_TIMEOUT_DURATION`: wait for a task result after its node finished."""
    progress_patch_tick_seconds: float = 60.0
    """`ARGO_PROGRESS_PATCH_TICK_DURATION`, passed to executor containers (Argo: 1m)."""
    progress_file_tick_seconds: float = 3.0
    """`ARGO_PROGRESS_FILE_TICK_DURATION`, passed to executor containers (Argo: 3s)."""
    leader_election: bool = True
    """False when `LEADER_ELECTION_DISABLE=true` (single replica, e.g. a local run)."""
    identity: str = dataclasses.field(default_factory=socket.gethostname)
    """Leader-election identity: `LEADER_ELECTION_IDENTITY`, else the host name."""
    workflow_workers: int = 4
    """Threads reconciling workflows (Argo default 32; the reference favours readability)."""
    pod_cleanup_workers: int = 2
    """Threads running pod clean-up actions (label, finalizer removal, delete, signal)."""
    executor_log_level: str = "info"
    """`--loglevel` passed to argoexec, as Argo passes its own level."""
    health_port: int | None = None
    """Port of `GET /healthz` (flag `--health-port`, default 6060 as upstream's fixed
    `:6060`); None serves nothing (tests, out-of-cluster runs that pass no flag)."""
    retry_host_label: str = "kubernetes.io/hostname"
    """`RETRY_HOST_NAME_LABEL_KEY`: the node label `retryStrategy.affinity` excludes
    failed hosts by; set empty, no anti-affinity is added (as upstream)."""

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        namespace: str | None = None,
        configmap: str | None = None,
        executor_image: str | None = None,
        lease_name: str | None = None,
        kubeconfig: str | None = None,
        health_port: int | None = None,
    ) -> ControllerSettings:
        """Build the settings from the environment and the parsed flags.

        `environ` defaults to `os.environ`; tests pass a dict. Flags left as None keep their
        defaults. Raises SettingsError for an unknown fault name or a malformed duration.
        """
        env = os.environ if environ is None else environ
        fault_value = env.get(common.ENV_REFERENCE_FAULT, "")
        return cls(
            namespace=namespace or common.CONTROLLER_NAMESPACE,
            configmap=configmap or common.CONFIGMAP_NAME,
            executor_image=executor_image,
            lease_name=lease_name,
            kubeconfig=kubeconfig,
            health_port=health_port,
            status_capture_finalizer=env.get(common.ENV_STATUS_CAPTURE_FINALIZER)
            == "true",
            fault=faults.parse(fault_value),
            commission=commission.lookup(fault_value, side=commission.CONTROLLER),
            # Only executor-side faults go to the pods: a controller-side fault name
            # would make every executor refuse to start (unknown fault, exit 64).
            fault_passthrough=(
                fault_value.strip() if faults.executor_side(fault_value) else ""
            ),
            requeue_seconds=_duration(env, "DEFAULT_REQUEUE_TIME", 10.0),
            recently_started_pod_seconds=_duration(
                env, "RECENTLY_STARTED_POD_DURATION", 10.0
            ),
            recently_deleted_pod_seconds=_duration(
                env, "RECENTLY_DELETED_POD_DURATION", 120.0
            ),
            task_result_timeout_seconds=_duration(
                env, "TASK_RESULT_TIMEOUT_DURATION", 600.0
            ),
            progress_patch_tick_seconds=_duration(
                env, common.ENV_PROGRESS_PATCH_TICK, 60.0
            ),
            progress_file_tick_seconds=_duration(
                env, common.ENV_PROGRESS_FILE_TICK, 3.0
            ),
            leader_election=env.get("LEADER_ELECTION_DISABLE") != "true",
            identity=env.get("LEADER_ELECTION_IDENTITY") or socket.gethostname(),
            retry_host_label=env.get(
                "RETRY_HOST_NAME_LABEL_KEY", "kubernetes.io/hostname"
            ),
        )

    @property
    def fault_name(self) -> str:
        """The deliberate fault this process runs with (either side's), "" for none."""
        if self.fault is not None:
            return self.fault.value
        if self.commission is not None:
            return self.commission.name
        return self.fault_passthrough

    def has_fault(self, fault: faults.Fault) -> bool:
        """Return whether this process runs with the given deliberate fault."""
        return self.fault is fault


def _duration(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if not raw:
        return default
    try:
        return durations.parse(raw)
    except ValueError:
        raise errors.SettingsError(f"{name}={raw!r} is not a duration") from None
