"""Settings of the kind provider: where its files go, which Docker, which node image.

Two modes of the one code path (issue 15). `own` (the default) is this
machine's: no registry, so the provider starts its own dockerd
(`clusters.docker`) and builds its own node image offline (`nodeimage`).
`host` is for a laptop or a hosted CI runner with a Docker engine already
running and a registry in reach: the provider uses that engine (DOCKER_HOST,
else the default socket) and never starts or stops it. Independently, a node
image may be named (WPC_KIND_NODE_IMAGE, e.g. an upstream digest-pinned
kindest/node); kind then pulls it and nothing is built. See docs/vendors.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters.docker.settings import DockerSettings
from clusters.errors import ProviderError
from plumbing.gobuilding import BuildSettings

DOCKER_VARIABLE = "WPC_KIND_DOCKER"
"""Which Docker engine kind runs on: `own` or `host`."""

NODE_IMAGE_VARIABLE = "WPC_KIND_NODE_IMAGE"
"""A node image reference to use as given instead of building ours."""

DOCKER_MODES = {
    "own": "start the project's own dockerd (root, apt) and build the node image here",
    "host": "use the Docker engine already running at DOCKER_HOST or the default socket",
}

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
"""Where the docker CLI looks when DOCKER_HOST is not set."""

_REFERENCE = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9._/:-]*?)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9._-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?$"
)
"""An image reference: name[:tag][@sha256:<64 hex>] (what `docker pull` accepts)."""

_MINOR = re.compile(r"^v1\.(\d+)\.")


def check_node_image(ref: str, *, source: str = NODE_IMAGE_VARIABLE) -> str:
    """`ref` if it is an image reference; ProviderError naming `source` if not."""
    match = _REFERENCE.match(ref)
    if not match or "//" in ref or ref.endswith(("/", ":")):
        raise ProviderError(
            f"{source}={ref!r} is not an image reference; expected "
            "name[:tag][@sha256:<64 hex digits>], e.g. "
            "kindest/node:v1.36.4@sha256:099e0493..."
        )
    return ref


def node_image_minor(ref: str) -> int | None:
    """The Kubernetes minor a kindest/node-style tag names (v1.35.8 -> 35), else None."""
    match = _REFERENCE.match(ref)
    tag = match.group("tag") if match else None
    minor = _MINOR.match(tag or "")
    return int(minor.group(1)) if minor else None


def _docker_host(environ: Mapping[str, str]) -> str:
    host = environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST
    if "://" not in host:
        raise ProviderError(
            f"DOCKER_HOST={host!r} has no scheme; {DOCKER_VARIABLE}=host needs e.g. "
            f"{DEFAULT_DOCKER_HOST} or tcp://host:2376"
        )
    return host


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
    coredns_restart_timeout: float = 240.0
    """Seconds, once every node is Ready, for kube-proxy to run on every node and
    then for the restarted CoreDNS Deployment (two replicas) to have every pod on
    WPC's Corefile and Ready (each a `kubectl rollout status --timeout`). Unloaded,
    the CoreDNS rollout takes 36-43 s; a CI run on the loaded 2-core machine once
    ran out of 120 s with "1 of 2 updated replicas are available"."""
    dns_timeout: float = 120.0
    """Seconds for CoreDNS to answer through the kube-dns Service, three times in a row."""
    docker_mode: str = "own"
    """`own` (our dockerd) or `host` (an engine someone else runs); see DOCKER_MODES."""
    node_image: str = ""
    """A node image to use as given (kind pulls it); empty: build ours offline."""

    @property
    def host_docker(self) -> bool:
        """True when the engine is not ours: never set up, stopped or cleaned by us."""
        return self.docker_mode == "host"

    def record(self) -> dict[str, str]:
        """What the holder file and the cluster marker say about how the cluster was made."""
        return {
            "docker": self.docker_mode,
            "dockerHost": self.docker.host,
            "nodeImage": self.node_image,
        }

    @classmethod
    def from_env(
        cls,
        *,
        workers: int = 0,
        docker_mode: str | None = None,
        node_image: str | None = None,
        recorded: Mapping[str, str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> KindSettings:
        """Read WPC_STATE_DIR, WPC_KIND_*, and what Docker/BuildSettings read.

        Precedence: the arguments (`up` flags), then the environment, then
        `recorded` (what the holder file says the running cluster was made
        with, so `down` finds the engine `up` used), then the defaults.
        A bad value is a ProviderError naming the variable.
        """
        env = os.environ if environ is None else environ
        rec = recorded or {}
        mode_source = "--kind-docker" if docker_mode is not None else DOCKER_VARIABLE
        mode = docker_mode or env.get(DOCKER_VARIABLE) or rec.get("docker") or "own"
        if mode not in DOCKER_MODES:
            raise ProviderError(
                f"{mode_source}={mode!r}: choose one of "
                + "; ".join(f"{k} ({v})" for k, v in DOCKER_MODES.items())
            )
        image_source = (
            "--kind-node-image" if node_image is not None else NODE_IMAGE_VARIABLE
        )
        image = (
            node_image
            if node_image is not None
            else env.get(NODE_IMAGE_VARIABLE, rec.get("nodeImage", ""))
        )
        if image:
            check_node_image(image, source=image_source)
        root = Path(env.get("WPC_STATE_DIR", "/var/lib/wpc"))
        docker = (
            DockerSettings(
                external=_docker_host(env),
                search_path=env.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            )
            if mode == "host"
            else DockerSettings.from_env()
        )
        return cls(
            work_dir=root / "kind",
            workers=workers,
            docker=docker,
            build=BuildSettings.from_env(),
            docker_mode=mode,
            node_image=image,
        )
