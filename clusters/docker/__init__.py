"""The project's own Docker engine, for the kind provider: set up, check, tear down.

`setup` installs Debian's docker.io if needed, raises the inotify limits kind
asks for, registers the runtime the host needs (see `runtimes`), starts
containerd and dockerd on their own state (see `daemons`), refuses an engine
that fell back to a storage driver no kind node can run on (see `storage`), and
proves the host's forwarding still works for the local cluster (see `hostnet`).
`teardown` stops what `setup` started and removes what dockerd left on the
host; `leftovers` lists anything still there (empty = clean).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from clusters.docker import cli
from clusters.docker import daemons
from clusters.docker import hostnet
from clusters.docker import installing
from clusters.docker import runtimes
from clusters.docker import storage
from clusters.docker.settings import DockerSettings
from clusters.errors import ProviderError
from plumbing import mounts

logger = logging.getLogger(__name__)

__all__ = ["DockerSettings", "Engine", "answering", "leftovers", "setup", "teardown"]


@dataclass(frozen=True)
class Engine:
    """What `setup` found or made."""

    host: str
    """The DOCKER_HOST of our dockerd."""
    started: bool
    """True if this call started the daemons (False: they were running)."""
    withheld: tuple[str, ...]
    """Capabilities the runtime wrapper removes (empty: plain runc)."""
    installed: tuple[str, ...] = ()
    forward_restored: bool = False
    pod_traffic: str = ""
    """What the local-cluster traffic check saw (empty when it did not run)."""


def setup(
    s: DockerSettings, *, local_traffic_check: Callable[[], str] | None = None
) -> Engine:
    """Make our dockerd run; idempotent. `local_traffic_check` runs after a start."""
    _refuse_external(s, "set up")
    installed = installing.ensure(s.log_dir / "setup.log")
    changed = hostnet.raise_inotify_limits()
    if changed:
        logger.info("Raised inotify limits: %s.", changed)
    withheld = tuple(runtimes.host_withheld())
    if daemons.running(s):
        return Engine(host=s.host, started=False, withheld=withheld)
    before = hostnet.forward_policy()
    runtime = runtimes.install(s, list(withheld))
    daemons.start(s, runtime)
    restored = hostnet.restore_forward_policy(before)
    try:
        storage.ensure_usable(s)
    except ProviderError:
        teardown(s)  # nothing of a refused engine stays behind
        raise
    seen = local_traffic_check() if local_traffic_check else ""
    logger.info("dockerd is up at %s.", s.host)
    return Engine(
        host=s.host,
        started=True,
        withheld=withheld,
        installed=tuple(installed),
        forward_restored=restored,
        pod_traffic=seen,
    )


def teardown(s: DockerSettings) -> list[str]:
    """Stop our daemons and remove what dockerd left on the host; return leftovers."""
    _refuse_external(s, "stop")
    if daemons.ours(s):
        daemons.stop(s)
    mounts.unmount_below(s.run_root)
    mounts.unmount_below(s.state_root)
    others = daemons.foreign_dockerds(s)
    if others:
        logger.info(
            "Docker's iptables chains stay: dockerd pid %s, not ours, uses them too.",
            ", ".join(map(str, others)),
        )
    else:
        hostnet.remove_docker_rules()
    runtimes.remove(s)
    return leftovers(s)


def leftovers(s: DockerSettings) -> list[str]:
    """Everything of our engine still on the host (empty = clean)."""
    found = [f"process {p}" for p in daemons.ours(s)]
    found += [f"mount {m}" for m in mounts.mounts_below(s.run_root)]
    found += [f"mount {m}" for m in mounts.mounts_below(s.state_root)]
    if not daemons.foreign_dockerds(s):  # else the chains are another engine's too
        found += [f"iptables {line}" for line in hostnet.docker_rules()]
    return found


def answering(s: DockerSettings) -> bool:
    """True when the engine answers (ours: /_ping; external: `docker version`).

    `docker version` works for any DOCKER_HOST scheme the CLI speaks.
    """
    if s.external:
        return cli.succeeds(s, "version", "--format", "{{.Server.Version}}")
    return daemons.running(s)


def _refuse_external(s: DockerSettings, verb: str) -> None:
    """Never touch an engine we did not start (WPC_KIND_DOCKER=host)."""
    if s.external:
        raise ProviderError(
            f"the Docker engine at {s.external} is not WPC's (WPC_KIND_DOCKER=host): "
            f"WPC does not {verb} it"
        )
