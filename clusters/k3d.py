"""The k3d provider: k3s 1.36 in Docker, for machines with Docker and a registry.

It cannot run on the project's own machines (no registry, no Docker engine);
its generated config and command lines are unit-tested. k3s defaults to
containerd, which serves image volumes from 2.1 on.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from clusters import _cli_providers as cli
from clusters.base import ClusterStatus

K3S_IMAGE = "rancher/k3s:v1.36.2-k3s1"
"""The newest 1.36 k3s Argo's own CI uses (hack/k8s-versions.sh max)."""


def config(*, cluster: str, cgroup_v1: bool) -> dict[str, Any]:
    """A k3d Simple config: one server, no agents, no bundled traefik."""
    args: list[dict[str, Any]] = [
        {"arg": "--disable=traefik", "nodeFilters": ["server:*"]}
    ]
    if cgroup_v1:
        args.append(
            {"arg": "--kubelet-arg=fail-cgroupv1=false", "nodeFilters": ["server:*"]}
        )
    return {
        "apiVersion": "k3d.io/v1alpha5",
        "kind": "Simple",
        "metadata": {"name": cluster},
        "servers": 1,
        "agents": 0,
        "image": K3S_IMAGE,
        "options": {
            "k3s": {"extraArgs": args},
            "kubeconfig": {"updateDefaultKubeconfig": False},
        },
    }


class K3dProvider:
    """Implements clusters.base.ClusterProvider with the k3d CLI."""

    name = "k3d"

    def __init__(self, work_dir: Path | None = None) -> None:
        self.work_dir = (
            work_dir or Path(os.environ.get("WPC_STATE_DIR", "/var/lib/wpc")) / "k3d"
        )

    def create_command(self, cluster: str, config_path: Path) -> list[str]:
        """The `k3d cluster create` command line."""
        return [
            "k3d",
            "cluster",
            "create",
            cluster,
            "--config",
            str(config_path),
            "--wait",
        ]

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Create the cluster, then mark it as WPC's; `retain` has no k3d equivalent."""
        cfg = self.work_dir / cluster / "k3d.yaml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(
            yaml.safe_dump(config(cluster=cluster, cgroup_v1=cli.host_is_cgroup_v1()))
        )
        cli.run_cli(
            self.create_command(cluster, cfg),
            log_path=self.work_dir / cluster / "create.log",
        )
        cli.apply_marker(
            kubectl="kubectl",
            kubeconfig=self.kubeconfig(cluster),
            provider=self.name,
            name=cluster,
        )

    def delete(self, cluster: str) -> None:
        """`k3d cluster delete` succeeds for a missing cluster too."""
        cli.run_cli(
            ["k3d", "cluster", "delete", cluster],
            log_path=self.work_dir / f"{cluster}-delete.log",
        )

    def kubeconfig(self, cluster: str) -> Path:
        """Write `k3d kubeconfig get` to a file and return it."""
        return cli.write_kubeconfig(
            ["k3d", "kubeconfig", "get", cluster],
            self.work_dir / cluster / "kubeconfig",
        )

    def status(self, cluster: str) -> ClusterStatus:
        """Running when k3d lists the cluster."""
        from clusters.errors import RunError
        from plumbing import commands

        cli.require_cli("k3d")
        running = cluster in commands.capture(
            ["k3d", "cluster", "list", "--no-headers"], error=RunError
        )
        return ClusterStatus(
            name=cluster, provider=self.name, running=running, kubeconfig=None
        )

    def load_command(self, cluster: str, archive: Path) -> list[str]:
        """`k3d image import` takes docker-save and OCI archives."""
        return ["k3d", "image", "import", str(archive), "--cluster", cluster]

    def load_image(self, cluster: str, archive: Path) -> str:
        """Import an archive into the node's containerd."""
        from clusters.images.archives import image_name

        cli.run_cli(
            self.load_command(cluster, archive),
            log_path=self.work_dir / cluster / "load.log",
        )
        return image_name(archive)

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """k3d has no log export; record the node list instead."""
        target = dest / cluster
        target.mkdir(parents=True, exist_ok=True)
        cli.run_cli(["k3d", "node", "list"], log_path=target / "nodes.log")
        return target

    def kubectl(self, cluster: str) -> Path:
        """The kubectl on PATH."""
        return Path(cli.require_cli("kubectl"))
