"""The kind provider: Kubernetes 1.36 in Docker, offline, on the project's own Docker engine.

`create` is an ordered list of small steps (kind's actions, envtest's
control plane), rolled back by the idempotent `delete` unless `retain`:
our dockerd (`clusters.docker`), the pinned kind CLI and the node image built
here (`nodeimage`), `kind create cluster` with the rendered config
(`configs`), the WPC marker, then the proof that it works: every node Ready
and CoreDNS answering through the kube-dns Service. `delete` removes the
cluster, the kind network and, when no kind cluster is left, stops our
Docker engine; it raises if anything of ours is left.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from clusters import _cli_providers as cli
from clusters import building
from clusters import docker
from clusters import pins
from clusters.base import ClusterStatus
from clusters.corefile import COREFILE
from clusters.docker import cli as docker_cli
from clusters.docker import daemons
from clusters.errors import ClusterError
from clusters.errors import RunError
from clusters.kind import configs
from clusters.kind import nodeimage
from clusters.kind import readiness
from clusters.kind.configs import config
from clusters.kind.configs import host_is_cgroup_v1
from clusters.kind.settings import KindSettings
from plumbing import commands

logger = logging.getLogger(__name__)

__all__ = [
    "KindProvider",
    "KindSettings",
    "config",
    "host_is_cgroup_v1",
    "running_clusters",
]

CLUSTER_LABEL = "io.x-k8s.kind.cluster"
"""The label kind puts on every node container."""


def running_clusters(s: docker.DockerSettings | None = None) -> list[str]:
    """Names of the kind clusters with node containers on our dockerd (none if it is down)."""
    s = s or docker.DockerSettings.from_env()
    if not daemons.running(s):
        return []
    out = docker_cli.capture(
        s,
        "ps",
        "--all",
        "--filter",
        f"label={CLUSTER_LABEL}",
        "--format",
        f'{{{{.Label "{CLUSTER_LABEL}"}}}}',
    )
    return sorted(set(out.split()))


class KindProvider:
    """Implements clusters.base.ClusterProvider with kind on our own Docker engine."""

    name = "kind"

    def __init__(self, settings: KindSettings | None = None) -> None:
        self.settings = settings or KindSettings.from_env()

    @property
    def work_dir(self) -> Path:
        """Configs, logs and kubeconfigs of our kind clusters."""
        return self.settings.work_dir

    def _kind(self) -> Path:
        return building.build_kind(self.settings.build)

    def create_command(
        self, cluster: str, config_path: Path, image: str, *, kind: str = "kind"
    ) -> list[str]:
        """The `kind create cluster` command line (readiness is checked by us, after)."""
        return [
            kind,
            "create",
            "cluster",
            "--name",
            cluster,
            "--config",
            str(config_path),
            "--image",
            image,
            "--kubeconfig",
            str(self.kubeconfig_path(cluster)),
        ]

    def kubeconfig_path(self, cluster: str) -> Path:
        """Where kind writes the cluster's admin kubeconfig (never ~/.kube/config)."""
        return self.work_dir / cluster / "kubeconfig"

    def create(self, cluster: str, *, retain: bool = False) -> None:
        """Create the cluster and prove it works; roll back on failure unless `retain`."""
        s = self.settings
        docker.setup(s.docker)
        if cluster in running_clusters(s.docker):
            readiness.wait(s, cluster, kubeconfig=self.kubeconfig(cluster))
            logger.info("kind cluster %s is already running and Ready.", cluster)
            return
        state: dict[str, str] = {}
        steps: list[tuple[str, Callable[[], None]]] = [
            ("docker engine", lambda: _discard(docker.setup(s.docker))),
            ("kind CLI", lambda: _discard(self._kind())),
            ("node image", lambda: state.update(image=self._image())),
            ("kind create", lambda: self._kind_create(cluster, state["image"], retain)),
            ("marker", lambda: self._mark(cluster, state["image"])),
            ("CoreDNS forwards nothing", lambda: self._own_corefile(cluster)),
            (
                "nodes Ready and DNS answers",
                lambda: readiness.wait(
                    s, cluster, kubeconfig=self.kubeconfig_path(cluster)
                ),
            ),
        ]
        for step_name, step in steps:
            t0 = time.monotonic()
            logger.info("Step: %s.", step_name)
            try:
                step()
            except BaseException:
                if not retain:
                    logger.error(
                        "Step %r failed; rolling back (use --retain to keep it).",
                        step_name,
                    )
                    self._delete(cluster, check=False)
                raise
            logger.info("Step %s took %.1fs.", step_name, time.monotonic() - t0)

    def _image(self) -> str:
        return nodeimage.ensure(self.settings.docker, self.settings.build)

    def _kind_create(self, cluster: str, image: str, retain: bool) -> None:
        cfg = self.work_dir / cluster / "kind.yaml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(
            configs.render(workers=self.settings.workers, cgroup_v1=host_is_cgroup_v1())
        )
        cmd = self.create_command(cluster, cfg, image, kind=str(self._kind()))
        if retain:
            cmd.append("--retain")
        _run(self.settings, cmd, self.work_dir / cluster / "create.log")

    def _mark(self, cluster: str, image: str) -> None:
        image_id = docker_cli.capture(
            self.settings.docker, "image", "inspect", "--format", "{{.Id}}", image
        ).strip()
        cli.apply_marker(
            kubectl=str(self.kubectl(cluster)),
            kubeconfig=self.kubeconfig_path(cluster),
            provider=self.name,
            name=cluster,
            # Reports copy the marker: what exactly the nodes were made from.
            details={"nodeImage": image, "nodeImageId": image_id},
        )

    def _own_corefile(self, cluster: str) -> None:
        """Replace kubeadm's Corefile (it forwards to Docker's DNS) with WPC's, and restart."""
        kubectl = [
            str(self.kubectl(cluster)),
            "--kubeconfig",
            str(self.kubeconfig_path(cluster)),
        ]
        body = json.dumps(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "coredns", "namespace": "kube-system"},
                "data": {"Corefile": COREFILE},
            }
        )
        commands.capture([*kubectl, "apply", "-f", "-"], stdin=body, error=RunError)
        # The reload plugin would notice within a minute or so; a restart is
        # immediate, and the DNS check that follows waits for the new pods.
        for verb in (
            ["restart"],
            ["status", f"--timeout={int(self.settings.dns_timeout)}s"],
        ):
            commands.capture(
                [*kubectl, "-n", "kube-system", "rollout", *verb, "deployment/coredns"],
                error=RunError,
            )

    def delete(self, cluster: str) -> None:
        """Delete the cluster like `rm -f`; raise if anything of ours is left."""
        self._delete(cluster, check=True)

    def _delete(self, cluster: str, *, check: bool) -> None:
        s = self.settings
        log = self.work_dir / f"{cluster}-delete.log"
        if not daemons.running(s.docker) and (s.docker.state_root / "data").is_dir():
            # A stopped (or killed) engine may still hold the cluster's containers:
            # start it to delete them, instead of finding them at the next `up`.
            docker.setup(s.docker)
        if cluster in running_clusters(s.docker):
            _run(s, [str(self._kind()), "delete", "cluster", "--name", cluster], log)
        left = [f"node container {n}" for n in _nodes_if_up(s, cluster)]
        if not running_clusters(s.docker):
            if daemons.running(s.docker):
                # kind leaves its network behind; nothing else uses it.
                commands.attempt(
                    ["docker", "network", "rm", "kind"], env=s.docker.env()
                )
            left += docker.teardown(s.docker)
        shutil.rmtree(self.work_dir / cluster, ignore_errors=True)
        if left and check:
            raise ClusterError("down left things behind:\n" + "\n".join(left))

    def kubeconfig(self, cluster: str) -> Path:
        """The admin kubeconfig kind wrote for the cluster."""
        path = self.kubeconfig_path(cluster)
        if not path.exists():
            _run(
                self.settings,
                [
                    *(str(self._kind()), "export", "kubeconfig", "--name", cluster),
                    *("--kubeconfig", str(path)),
                ],
                self.work_dir / cluster / "kubeconfig.log",
            )
        return path

    def status(self, cluster: str) -> ClusterStatus:
        """Running when our dockerd has the cluster's node containers."""
        names = running_clusters(self.settings.docker)
        path = self.kubeconfig_path(cluster)
        nodes = (
            readiness.node_containers(self.settings.docker, cluster)
            if cluster in names
            else []
        )
        return ClusterStatus(
            name=cluster,
            provider=self.name,
            running=cluster in names,
            kubeconfig=path if path.exists() else None,
            detail=f"{len(nodes)} node containers on {self.settings.docker.host}",
        )

    def load_command(
        self, cluster: str, archive: Path, *, kind: str = "kind"
    ) -> list[str]:
        """`kind load image-archive` streams the archive into every node's containerd."""
        return [
            kind,
            "load",
            "image-archive",
            str(archive),
            "--name",
            cluster,
        ]

    def load_image(self, cluster: str, archive: Path) -> str:
        """Load an OCI or docker-save archive into every node; return the image ref."""
        from clusters.images import image_name

        _run(
            self.settings,
            self.load_command(cluster, archive, kind=str(self._kind())),
            self.work_dir / cluster / "load.log",
        )
        return image_name(archive)

    def collect_logs(self, cluster: str, dest: Path) -> Path:
        """`kind export logs`."""
        target = dest / cluster
        _run(
            self.settings,
            [str(self._kind()), "export", "logs", str(target), "--name", cluster],
            self.work_dir / cluster / "logs.log",
        )
        return target

    def kubectl(self, cluster: str) -> Path:
        """The kubectl built with the cluster's Kubernetes version."""
        return (
            building.component_dir(self.settings.build, "kubernetes", pins.KUBERNETES)
            / "bin"
            / "kubectl"
        )


def _discard(_: object) -> None:
    """Drop a step's return value."""


def _run(s: KindSettings, command: list[str], log: Path) -> None:
    """Run a kind or docker command against our dockerd, logged."""
    commands.run(command, log_path=log, env=s.docker.env(), error=RunError)


def _nodes_if_up(s: KindSettings, cluster: str) -> list[str]:
    return (
        readiness.node_containers(s.docker, cluster)
        if daemons.running(s.docker)
        else []
    )
