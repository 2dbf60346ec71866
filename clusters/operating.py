"""The verbs of `python -m clusters` that do more than call one provider method.

`cli` only parses arguments (STYLE 12); these typed functions do the work:
`up` and `down` keep the machine's one-cluster rule (`holding`), `docker_setup`
prepares the kind provider's Docker engine (and proves a running local
cluster survived it), `build_node_image` writes the offline kind node image,
`build_components` builds the local cluster's Go components without starting anything
(`make test` builds Kubernetes before its unit stage: the manifests tests render with
the built kubectl).
"""

from __future__ import annotations

import time
from pathlib import Path

from clusters import building
from clusters import docker
from clusters import providers
from clusters.base import ClusterProvider
from clusters.docker import hostnet
from clusters.errors import ClusterError
from clusters.errors import Interrupted
from clusters.errors import ProviderError
from clusters.kind import nodeimage
from clusters.machine import holding
from clusters.machine import hostdeps
from clusters.machine import interrupting
from plumbing.gobuilding import BuildSettings


def up(
    *,
    provider: str,
    name: str,
    workers: int = 0,
    retain: bool = False,
    kind_docker: str | None = None,
    kind_node_image: str | None = None,
) -> float:
    """Create the cluster unless another provider's holds the machine; return seconds taken."""
    p = providers.get(
        provider,
        workers=workers,
        kind_docker=kind_docker,
        kind_node_image=kind_node_image,
    )
    me = holding.Holder(provider=provider, name=name, details=_details(p))
    claims = provider in holding.HOLDING_PROVIDERS
    if claims:
        holding.claim(
            holding.holder_file(),
            me,
            running=provider_running,
            discover=discover_running,
        )
    t0 = time.monotonic()
    try:
        if provider == "local":
            _up_local(p, name=name, retain=retain)
        else:
            if needs_host_packages(p):
                _ensure_host_packages()
            p.create(name, retain=retain)
    except BaseException:
        if claims and not retain:
            holding.release(holding.holder_file(), me)
        raise
    return time.monotonic() - t0


def provider_running(h: holding.Holder) -> bool:
    """Whether the holder's provider still reports its cluster running."""
    try:
        return providers.get(h.provider).status(h.name).running
    except ProviderError:
        return False  # its CLI is gone: nothing of it can be running


def discover_running() -> list[holding.Holder]:
    """Clusters holding the machine without a holder file.

    Local state dirs with processes; kind clusters with node containers on the
    engine, or dormant in WPC's stopped engine (see `clusters.kind.dormant`).
    """
    from clusters import kind

    found = []
    state_root = holding.holder_file().parent
    if state_root.is_dir():
        local = providers.get("local")
        for entry in sorted(state_root.iterdir()):
            if (entry / "config").is_dir() and local.status(entry.name).running:
                found.append(holding.Holder(provider="local", name=entry.name))
    # A kind cluster dormant in our stopped engine counts: it starts with the engine.
    found += [holding.Holder(provider="kind", name=n) for n in kind.holding_clusters()]
    return found


def _details(p: ClusterProvider) -> dict[str, str]:
    """What the holder file records about how the cluster is made (kind: its mode)."""
    from clusters.kind import KindProvider

    return p.settings.record() if isinstance(p, KindProvider) else {}


def needs_host_packages(p: ClusterProvider) -> bool:
    """kind on our own engine builds runc and containerd with cgo, as the local provider.

    On an engine someone else runs (host mode: a CI runner, no root, a pulled node
    image) nothing is built with cgo and apt is not ours to call.
    """
    from clusters.kind import KindProvider

    return isinstance(p, KindProvider) and not p.settings.host_docker


def _ensure_host_packages() -> None:
    hostdeps.ensure(BuildSettings.from_env().cache_dir / "logs" / "host-deps.log")


def _up_local(provider: ClusterProvider, *, name: str, retain: bool) -> None:
    """Create a local cluster; SIGINT or SIGTERM rolls back what it started."""
    with interrupting.interrupts_raise():
        try:
            _ensure_host_packages()
            provider.create(name, retain=retain)
        except interrupting.Signalled as sig:
            # The steps of create roll back and report themselves; a signal reaching
            # here arrived outside them (host packages, the already-running check).
            raise Interrupted(
                sig.signum, outcome="no step of `up` was running; nothing rolled back"
            ) from None


def down(*, provider: str, name: str) -> None:
    """Delete the cluster (idempotent) and give the machine back."""
    providers.get(provider).delete(name)
    holding.release(holding.holder_file(), holding.Holder(provider=provider, name=name))


def _own_engine(verb: str) -> docker.DockerSettings:
    """Our engine's settings; ProviderError when WPC_KIND_DOCKER=host selects another."""
    from clusters.kind import KindSettings

    if KindSettings.from_env().host_docker:
        raise ProviderError(
            f"{verb}: WPC_KIND_DOCKER=host uses the Docker engine already running; "
            "WPC neither starts nor stops it (unset the variable for WPC's own engine)"
        )
    return docker.DockerSettings.from_env()


def docker_setup() -> docker.Engine:
    """Set up the kind provider's Docker engine; check a running local cluster after it."""
    settings = _own_engine("docker-setup")
    running_local = [h for h in discover_running() if h.provider == "local"]

    def local_traffic() -> str:
        seen = []
        for h in running_local:
            local = providers.get("local")
            seen.append(
                hostnet.check_local_pod_traffic(
                    kubectl=local.kubectl(h.name),
                    kubeconfig=local.kubeconfig(h.name),
                    state_dir=holding.holder_file().parent / h.name,
                )
            )
        return "; ".join(seen) or "no local cluster runs"

    return docker.setup(settings, local_traffic_check=local_traffic)


def docker_down() -> list[str]:
    """Stop the kind provider's Docker engine unless a kind cluster runs; return leftovers."""
    from clusters import kind

    settings = _own_engine("docker-down")
    running = kind.running_clusters(settings)
    if running:
        raise ProviderError(
            f"kind clusters {running} run on the engine: "
            "python -m clusters down --provider kind --name <name> first"
        )
    return docker.teardown(settings)


def build_node_image(output: Path | None) -> tuple[str, float]:
    """Build (or find) the kind node image, optionally write it as a tar; return tag, seconds."""
    from clusters.kind import KindSettings

    t0 = time.monotonic()
    s = KindSettings.from_env().docker
    if not s.external:
        docker.setup(s)
    build = BuildSettings.from_env()
    if output is not None:
        return nodeimage.export(s, build, output), time.monotonic() - t0
    return nodeimage.ensure(s, build), time.monotonic() - t0


def build_components(names: list[str]) -> dict[str, Path]:
    """Build (or reuse) the named components (none named: all); return their bin dirs.

    No cluster, no root: only Go and the build cache. An unknown name is an error
    naming it and the known ones, before anything is built.
    """
    known = list(building.components())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ClusterError(
            f"unknown component(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    return building.build_all(BuildSettings.from_env(), names or None)
