"""Settings of the kind provider: where its files go, node count, named timeouts."""

from __future__ import annotations

import os
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters.docker.settings import DockerSettings
from plumbing.gobuilding import BuildSettings


@dataclass(frozen=True)
class KindSettings:
    """Everything that shapes one kind cluster. Defaults fit the project's machines."""

    work_dir: Path = Path("/var/lib/wpc/kind")
    """Configs, logs and kubeconfigs, one directory per cluster; `down` removes it."""
    workers: int = 0
    """Worker nodes beside the one control-plane node (more control planes would
    need kind's load-balancer image, which cannot be pulled here)."""
    docker: DockerSettings = field(default_factory=DockerSettings)
    build: BuildSettings = field(
        default_factory=lambda: BuildSettings(Path.home() / ".cache" / "wpc")
    )
    nodes_ready_timeout: float = 240.0
    """Seconds from `kind create cluster` returning to every node Ready (the pod
    network starts on each node once its kubelet has credentials)."""
    dns_timeout: float = 120.0
    """Seconds for CoreDNS to answer through the kube-dns Service, three times in a row."""

    @classmethod
    def from_env(cls, *, workers: int = 0) -> KindSettings:
        """Read WPC_STATE_DIR and what DockerSettings and BuildSettings read."""
        root = Path(os.environ.get("WPC_STATE_DIR", "/var/lib/wpc"))
        return cls(
            work_dir=root / "kind",
            workers=workers,
            docker=DockerSettings.from_env(),
            build=BuildSettings.from_env(),
        )
