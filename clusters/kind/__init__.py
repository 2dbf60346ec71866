"""The kind provider: Kubernetes 1.36 in Docker, offline on our own engine or on the host's.

`create` is an ordered list of small steps (kind's actions, envtest's
control plane), rolled back by the idempotent `delete` unless `retain`:
the Docker engine (ours from `clusters.docker`, or in `host` mode the one
already running, only checked), the pinned kind CLI, the node image (built
here by `nodeimage`, or a given one kind pulls; then kubectl is built alone),
`kind create cluster` with the rendered config (`configs`), the WPC marker,
then the proof that it works: every node Ready and CoreDNS answering through
the kube-dns Service. `delete` removes the cluster and, on our own engine
only, the kind network and, when no kind cluster is left, the engine itself;
it raises if anything of ours is left. See `settings` for the two modes.
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
from clusters._cli_providers import host_is_cgroup_v1
from clusters.base import ClusterStatus
from clusters.corefile import COREFILE
from clusters.docker import cli as docker_cli
from clusters.docker import daemons
from clusters.errors import ClusterError
from clusters.errors import ProviderError
from clusters.errors import RunError
from clusters.kind import configs
from clusters.kind import nodeimage
from clusters.kind import readiness
from clusters.kind.configs import config
from clusters.kind.dormant import CLUSTER_LABEL
from clusters.kind.dormant import dormant_clusters
from clusters.kind.settings import DOCKER_VARIABLE
from clusters.kind.settings import KindSettings
from clusters.kind.settings import node_image_minor
from plumbing import commands

logger = logging.getLogger(__name__)

__all__ = [
    "KindProvider",
    "KindSettings",
    "config",
    "holding_clusters",
    "running_clusters",
]


def _selected(s: docker.DockerSettings | None) -> docker.DockerSettings:
    """`s`, else the engine the environment selects (WPC_KIND_DOCKER, see `settings`)."""
    if s is not None:
        return s
    from clusters.machine import holding

    return KindSettings.from_env(recorded=holding.recorded_details("kind")).docker


def holding_clusters(s: docker.DockerSettings | None = None) -> list[str]:
    """The kind clusters that hold the machine: running, or dormant in our stopped engine.

    A dormant cluster (see `dormant`) comes back with the engine, so it holds the
    machine as a running one does until `down` removes it.
    """
    s = _selected(s)
    return running_clusters(s) if docker.answering(s) else dormant_clusters(s)


def running_clusters(s: docker.DockerSettings | None = None) -> list[str]:
    """Names of the kind clusters with node containers on the engine (none if it is down).

    Default: the engine the environment selects (WPC_KIND_DOCKER, see `settings`).
    """
    s = _selected(s)
    if not docker.answering(s):
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
    """Implements clusters.base.ClusterProvider with kind on our own or the host's Docker."""

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
        self._engine()
        if cluster in running_clusters(s.docker):
            readiness.wait(s, cluster, kubeconfig=self.kubeconfig(cluster))
            logger.info("kind cluster %s is already running and Ready.", cluster)
            return
        state: dict[str, str] = {}
        steps: list[tuple[str, Callable[[], None]]] = [
            ("docker engine", self._engine),
            ("kind CLI", lambda: _discard(self._kind())),
            ("node image", lambda: state.update(image=self._image())),
            ("kubectl", self._kubectl_built),
            ("kind create", lambda: self._kind_create(cluster, state["image"], retain)),
            ("marker", lambda: self._mark(cluster, state["image"])),
            # CoreDNS pods start only on Ready nodes (the pod network), so its
            # restart is waited for after the nodes, and DNS is asked after it.
            (
                "nodes Ready",
                lambda: readiness.wait_nodes(
                    s, cluster, kubeconfig=self.kubeconfig_path(cluster)
                ),
            ),
            ("CoreDNS forwards nothing", lambda: self._own_corefile(cluster)),
            (
                "DNS answers",
                lambda: readiness.wait_dns(
                    s, cluster, kubeconfig=self.kubeconfig_path(cluster)
                ),
            ),
        ]
        for step_name, step in steps:
            t0 = time.monotonic()
            logger.info("Step: %s.", step_name)
            try:
                with commands.heartbeat(f"in step {step_name}"):
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

    def _engine(self) -> None:
        """Our engine: set it up. The host's: only prove it answers (never start it)."""
        s = self.settings
        if not s.host_docker:
            docker.setup(s.docker)
        elif not docker.answering(s.docker):
            raise ProviderError(
                f"{DOCKER_VARIABLE}=host, but no Docker engine answers at "
                f"{s.docker.host} (`docker version` failed): start Docker, set "
                "DOCKER_HOST, or unset the variable to use WPC's own engine"
            )

    def _image(self) -> str:
        """The given node image as it is (kind pulls it), else ours, built offline."""
        if self.settings.node_image:
            return self.settings.node_image
        return nodeimage.ensure(self.settings.docker, self.settings.build)

    def _kubectl_built(self) -> None:
        """Our node image build made kubectl; with a given image, build Kubernetes here."""
        if not self.kubectl("").exists():
            building.build_all(self.settings.build, ["kubernetes"])

    def _kind_create(self, cluster: str, image: str, retain: bool) -> None:
        cfg = self.work_dir / cluster / "kind.yaml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        minor = node_image_minor(image)
        cfg.write_text(
            configs.render(
                workers=self.settings.workers,
                cgroup_v1=host_is_cgroup_v1(),
                image_volume_gate=minor is not None and minor < configs.IMAGE_VOLUME_GA,
                own_node_image=not self.settings.node_image,
            )
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
            details={
                **self.settings.record(),
                "nodeImage": image,
                "nodeImageId": image_id,
                "nodeImageSource": "given"
                if self.settings.node_image
                else "built here",
            },
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
        timeout = int(self.settings.coredns_restart_timeout)
        system = [*kubectl, "-n", "kube-system"]
        # A Ready node need not run kube-proxy yet; a CoreDNS pod put there cannot
        # reach the API server's Service address, and its `ready` plugin waits for
        # the kubernetes plugin's first list. Wait for kube-proxy everywhere first.
        # The reload plugin would notice the Corefile within a minute or so; a
        # restart is immediate. The DNS check that follows cannot tell old pods
        # from new (both answer), so the rollout is what proves every pod runs ours.
        for verb, workload in (
            (["status", f"--timeout={timeout}s"], "daemonset/kube-proxy"),
            (["restart"], "deployment/coredns"),
            (["status", f"--timeout={timeout}s"], "deployment/coredns"),
        ):
            try:
                commands.capture([*system, "rollout", *verb, workload], error=RunError)
            except RunError as exc:
                raise RunError(
                    command=exc.command,
                    returncode=exc.returncode,
                    output=f"{exc.output}\n{_system_pods(system)}",
                ) from exc

    def delete(self, cluster: str) -> None:
        """Delete the cluster like `rm -f`; raise if anything of ours is left."""
        self._delete(cluster, check=True)

    def _delete(self, cluster: str, *, check: bool) -> None:
        s = self.settings
        log = self.work_dir / f"{cluster}-delete.log"
        if s.host_docker:
            self._delete_on_host(cluster, check=check, log=log)
            return
        if not daemons.running(s.docker) and (s.docker.state_root / "data").is_dir():
            # A stopped (or killed) engine may still hold the cluster's containers:
            # start it to delete them, instead of finding them at the next `up`.
            docker.setup(s.docker)
        if cluster in running_clusters(s.docker):
            _run(s, [str(self._kind()), "delete", "cluster", "--name", cluster], log)
        left = [f"node container {n}" for n in _nodes_if_up(s, cluster)]
        others = running_clusters(s.docker)
        if others:
            logger.info(
                "WPC's Docker engine stays up: kind clusters %s still run on it.",
                ", ".join(others),
            )
        else:
            if daemons.running(s.docker):
                # kind leaves its network behind; nothing else uses it.
                commands.attempt(
                    ["docker", "network", "rm", "kind"], env=s.docker.env()
                )
            left += docker.teardown(s.docker)
        shutil.rmtree(self.work_dir / cluster, ignore_errors=True)
        if left and check:
            raise ClusterError("down left things behind:\n" + "\n".join(left))

    def _delete_on_host(self, cluster: str, *, check: bool, log: Path) -> None:
        """Host mode: delete this kind cluster only.

        The engine, its networks and any other kind cluster on it are not ours.
        """
        s = self.settings
        if cluster in running_clusters(s.docker):
            _run(s, [str(self._kind()), "delete", "cluster", "--name", cluster], log)
        left = [f"node container {n}" for n in _nodes_if_up(s, cluster)]
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
        """Running when our dockerd has the cluster's node containers.

        A cluster dormant in our stopped engine is not running, but its detail
        says that it comes back with the engine and how to remove it.
        """
        s = self.settings.docker
        names = running_clusters(s)
        path = self.kubeconfig_path(cluster)
        nodes = readiness.node_containers(s, cluster) if cluster in names else []
        detail = f"{len(nodes)} node containers on {s.host}"
        if not docker.answering(s) and cluster in dormant_clusters(s):
            detail = (
                f"dormant: WPC's Docker engine is stopped, and its node containers "
                f"start again with it; python -m clusters down --provider kind "
                f"--name {cluster} removes them"
            )
        return ClusterStatus(
            name=cluster,
            provider=self.name,
            running=cluster in names,
            kubeconfig=path if path.exists() else None,
            detail=detail,
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
        from clusters.images.archives import image_name

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
    """Run a kind or docker command against the selected engine, logged."""
    commands.run(command, log_path=log, env=s.docker.env(), error=RunError)


def _nodes_if_up(s: KindSettings, cluster: str) -> list[str]:
    return (
        readiness.node_containers(s.docker, cluster)
        if docker.answering(s.docker)
        else []
    )


def _system_pods(system: list[str]) -> str:
    """kube-system's pods (node, readiness) and its latest events: a failed rollout's evidence."""
    said = []
    for what in (
        ["get", "pods", "-o", "wide"],
        ["get", "events", "--sort-by=.lastTimestamp"],
    ):
        done = commands.attempt([*system, *what], timeout=30)
        lines = (done.stdout + done.stderr).splitlines()[-25:]
        said.append(f"$ kubectl -n kube-system {' '.join(what)}\n" + "\n".join(lines))
    return "\n".join(said)
