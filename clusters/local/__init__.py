"""The local provider: upstream Kubernetes components run directly on this host."""

from __future__ import annotations

import shutil
from pathlib import Path

from clusters import building
from clusters import pins
from clusters.base import ClusterStatus
from clusters.local import host
from clusters.local import provider
from clusters.local.settings import LocalSettings
from clusters.machine import processes

__all__ = ["LocalProvider"]


class LocalProvider:
    """Implements clusters.base.ClusterProvider with host processes."""

    name = "local"

    def _settings(self, cluster: str) -> LocalSettings:
        return LocalSettings.from_env(cluster)

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Build (cached) and start every component; roll back on failure."""
        provider.create(self._settings(cluster), retain=retain)

    def delete(self, cluster: str) -> None:
        """Stop everything and remove all traces; raises if anything is left."""
        provider.delete(self._settings(cluster))

    def kubeconfig(self, cluster: str) -> Path:
        """The admin kubeconfig inside the cluster's state dir."""
        return self._settings(cluster).kubeconfig

    def status(self, cluster: str) -> ClusterStatus:
        """Running when component processes exist for the cluster's state dir.

        A running cluster's network guards are checked too: displaced or
        missing guards are `problems` (its pods' traffic could leave the
        machine), and `status` exits non-zero on them.
        """
        s = self._settings(cluster)
        pids = processes.processes_under(str(s.state_dir))
        detail = f"{len(pids)} processes; state {s.state_dir}"
        problems = host.guard_problems(s) if pids else []
        if pids:
            detail += "; guards: " + ("; ".join(problems) or "first in mangle")
        return ClusterStatus(
            name=cluster,
            provider=self.name,
            running=bool(pids),
            kubeconfig=s.kubeconfig if s.kubeconfig.exists() else None,
            detail=detail,
            problems=tuple(problems),
        )

    def load_image(self, cluster: str, archive: Path) -> str:
        """Import into containerd namespace k8s.io and pin against image GC."""
        s = self._settings(cluster)
        ctr = (
            building.component_dir(s.build, "containerd", pins.CONTAINERD)
            / "bin"
            / "ctr"
        )
        return provider.import_image(s, ctr, archive)

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """Copy `<state>/logs` to `dest/<cluster>`."""
        s = self._settings(cluster)
        target = dest / cluster
        shutil.copytree(s.log_dir, target, dirs_exist_ok=True)
        return target

    def kubectl(self, cluster: str) -> Path:
        """The kubectl built with the cluster's Kubernetes version."""
        s = self._settings(cluster)
        return (
            building.component_dir(s.build, "kubernetes", pins.KUBERNETES)
            / "bin"
            / "kubectl"
        )
