"""The kind provider: Kubernetes 1.36 in Docker, for machines with Docker and a registry.

It cannot run on the project's own machines (no registry to pull kindest/node
from, no Docker engine); its generated config and command lines are unit-tested.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from clusters import _cli_providers as cli
from clusters.base import ClusterStatus

NODE_IMAGE = "kindest/node:v1.36.1"
"""kind v0.32's default node image for 1.36 (ImageVolume is GA there: no gate needed)."""


def config(*, cgroup_v1: bool) -> dict[str, Any]:
    """The kind Cluster config: one node, containerd (image volumes need >= 2.1)."""
    node: dict[str, Any] = {"role": "control-plane"}
    if cgroup_v1:
        # Kubelet 1.36 refuses cgroup v1 hosts unless told otherwise.
        node["kubeadmConfigPatches"] = [
            yaml.safe_dump(
                {
                    "kind": "KubeletConfiguration",
                    "failCgroupV1": False,
                }
            )
        ]
    return {"kind": "Cluster", "apiVersion": "kind.x-k8s.io/v1alpha4", "nodes": [node]}


def host_is_cgroup_v1(root: Path = Path("/sys/fs/cgroup")) -> bool:
    """True on a cgroup v1 (or hybrid) host: v2 has cgroup.controllers at the root."""
    return not (root / "cgroup.controllers").exists()


class KindProvider:
    """Implements clusters.base.ClusterProvider with the kind CLI."""

    name = "kind"

    def __init__(self, work_dir: Path | None = None) -> None:
        self.work_dir = (
            work_dir or Path(os.environ.get("WPC_STATE_DIR", "/var/lib/wpc")) / "kind"
        )

    def create_command(self, cluster: str, config_path: Path) -> list[str]:
        """The `kind create cluster` command line."""
        return [
            "kind",
            "create",
            "cluster",
            "--name",
            cluster,
            "--config",
            str(config_path),
            "--image",
            NODE_IMAGE,
            "--wait",
            "180s",
        ]

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Create the cluster, then mark it as WPC's."""
        cfg = self.work_dir / cluster / "kind.yaml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(yaml.safe_dump(config(cgroup_v1=host_is_cgroup_v1())))
        cmd = self.create_command(cluster, cfg)
        if retain:
            cmd.append("--retain")
        cli.run_cli(cmd, log_path=self.work_dir / cluster / "create.log")
        cli.apply_marker(
            kubectl="kubectl",
            kubeconfig=self.kubeconfig(cluster),
            provider=self.name,
            name=cluster,
        )

    def delete(self, cluster: str) -> None:
        """`kind delete cluster` is idempotent already."""
        cli.run_cli(
            ["kind", "delete", "cluster", "--name", cluster],
            log_path=self.work_dir / f"{cluster}-delete.log",
        )

    def kubeconfig(self, cluster: str) -> Path:
        """Write `kind get kubeconfig` to a file and return it."""
        return cli.write_kubeconfig(
            ["kind", "get", "kubeconfig", "--name", cluster],
            self.work_dir / cluster / "kubeconfig",
        )

    def status(self, cluster: str) -> ClusterStatus:
        """Running when kind lists the cluster."""
        from clusters.errors import RunError
        from plumbing import commands

        cli.require_cli("kind")
        running = (
            cluster
            in commands.capture(["kind", "get", "clusters"], error=RunError).split()
        )
        return ClusterStatus(
            name=cluster, provider=self.name, running=running, kubeconfig=None
        )

    def load_command(self, cluster: str, archive: Path) -> list[str]:
        """`kind load image-archive` takes OCI and docker-save archives."""
        return ["kind", "load", "image-archive", str(archive), "--name", cluster]

    def load_image(self, cluster: str, archive: Path) -> str:
        """Load an archive into the node."""
        from clusters.images import image_name

        cli.run_cli(
            self.load_command(cluster, archive),
            log_path=self.work_dir / cluster / "load.log",
        )
        return image_name(archive)

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """`kind export logs`."""
        target = dest / cluster
        cli.run_cli(
            ["kind", "export", "logs", str(target), "--name", cluster],
            log_path=self.work_dir / cluster / "logs.log",
        )
        return target

    def kubectl(self, cluster: str) -> Path:
        """The kubectl on PATH."""
        return Path(cli.require_cli("kubectl"))
