"""The provider protocol: every way of getting a cluster offers the same verbs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from typing import runtime_checkable


@dataclass(frozen=True)
class ClusterStatus:
    """What `status` reports."""

    name: str
    provider: str
    running: bool
    kubeconfig: Path | None
    detail: str = ""
    problems: tuple[str, ...] = ()
    """What is wrong with a running cluster (say, a displaced network guard)."""


@runtime_checkable
class ClusterProvider(Protocol):
    """A source of clusters (local processes, kind, k3d, an existing kubeconfig)."""

    name: str

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Create the cluster and wait until it can run pods and resolve Services."""

    def delete(self, cluster: str) -> None:
        """Delete the cluster; idempotent, like `rm -f`."""

    def kubeconfig(self, cluster: str) -> Path:
        """Path of an admin kubeconfig for the cluster."""

    def status(self, cluster: str) -> ClusterStatus:
        """Whether the cluster runs, and where its kubeconfig is."""

    def load_image(self, cluster: str, archive: Path) -> str:
        """Import an OCI or docker-save archive into the node; return the image ref."""

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """Copy the cluster's component logs under `dest`; return the directory."""

    def kubectl(self, cluster: str) -> Path:
        """A kubectl that matches the cluster's version."""


@dataclass(frozen=True)
class ComponentRestart:
    """What `NodeFaults.restart_component` did: the process gone and back."""

    component: str
    old_pid: int
    new_pid: int
    stopped_at: float
    """Unix time the old process was gone."""
    healthy_at: float
    """Unix time the new process passed its health probe."""


@runtime_checkable
class NodeFaults(Protocol):
    """Node-level faults for chaos experiments: an optional provider capability.

    `clusters.faults.of(provider)` returns one for providers that can reach
    their nodes' processes (the local provider), None for the others, whose
    experiments then report `unsupported`.
    """

    def restart_component(
        self, cluster: str, component: str, *, down_seconds: float = 0.0
    ) -> ComponentRestart:
        """Stop a node or control-plane process, keep it down, start it as it was."""

    def signal_container(
        self, cluster: str, container_id: str, signal: int
    ) -> list[int]:
        """Send `signal` to every process of a container; return their pids."""

    def cut_api_access(
        self, cluster: str, pod_uid: str
    ) -> tuple[str, Callable[[], None]]:
        """Reject a pod's connections to the API server, in the pod's network.

        Returns the evidence (a connection attempt refused from inside) and the
        function that lifts the cut (idempotent).
        """

    def cut_egress(self, cluster: str, pod_uid: str) -> tuple[str, Callable[[], None]]:
        """Reject a pod's connections to anything but the API server.

        Returns the evidence and the function that lifts the cut (idempotent).
        """


@runtime_checkable
class WorkerFaults(Protocol):
    """Whole-node faults on worker nodes: an optional provider capability.

    `clusters.faults.workers_of(provider)` returns one for providers whose
    nodes are containers the harness can stop (kind), None elsewhere: the
    multi-node experiments are then `skipped`. Each verb returns its evidence,
    the node container's state as the engine reports it afterwards. Cordon,
    eviction and deleting the Node object go through the Kubernetes API and
    need no provider.
    """

    def workers(self, cluster: str) -> list[str]:
        """Names of the cluster's worker nodes (node name = container name)."""

    def freeze(self, cluster: str, node: str) -> str:
        """Freeze every process of the node (`docker pause`): the kubelet goes silent."""

    def thaw(self, cluster: str, node: str) -> str:
        """Undo `freeze` (idempotent)."""

    def stop(self, cluster: str, node: str) -> str:
        """Stop the node's container (its init shuts the node down)."""

    def start(self, cluster: str, node: str) -> str:
        """Start a stopped node's container again (idempotent)."""

    def remove(self, cluster: str, node: str) -> str:
        """Remove the node's container for good; its Node object stays for the caller."""
