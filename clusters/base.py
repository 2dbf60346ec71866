"""The provider protocol: every way of getting a cluster offers the same verbs."""

from __future__ import annotations

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
