"""The `local` provider: a real single-node Kubernetes 1.36 from upstream components.

Creation is an ordered list of small steps (kind's actions, envtest's
control plane); a failed step rolls everything back with the idempotent
`delete` unless `retain` is set. Every process, mount, interface, iptables
chain and route the cluster makes is found again by `leftovers()`, which
`delete` uses to prove it left nothing behind.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters import building
from clusters import pins
from clusters.access import marker
from clusters.errors import ClusterError
from clusters.errors import Interrupted
from clusters.errors import RunError
from clusters.images import archives
from clusters.local import addons
from clusters.local import components
from clusters.local import configs
from clusters.local import host
from clusters.local import kubeapi
from clusters.local import pki
from clusters.local.settings import LocalSettings
from clusters.machine import interrupting
from clusters.machine import processes
from plumbing import commands
from plumbing import mounts

logger = logging.getLogger(__name__)

PAUSE_SOURCE = Path(__file__).resolve().parent.parent / "images" / "pause" / "pause.c"
COMPONENT_ORDER = (
    "kubelet",
    "kube-proxy",
    "kube-scheduler",
    "kube-controller-manager",
    "kube-apiserver",
    "containerd",
    "etcd",
)


@dataclass
class Bins:
    """Where each component's executables are."""

    kubernetes: Path
    etcd: Path
    containerd: Path
    runc: Path
    cni: Path
    coredns: Path
    pause: Path


@dataclass
class Creation:
    """State threaded through the creation steps."""

    settings: LocalSettings
    bins: Bins | None = None
    timings: dict[str, float] = field(default_factory=dict)


def ensure_binaries(s: LocalSettings) -> Bins:
    """Build (or reuse from the cache) every component binary."""
    built = building.build_all(s.build)
    return Bins(
        kubernetes=built["kubernetes"],
        etcd=built["etcd"],
        containerd=built["containerd"],
        runc=built["runc"],
        cni=built["cni-plugins"],
        coredns=built["coredns"],
        pause=building.build_pause(s.build, PAUSE_SOURCE),
    )


def ensure_image(
    s: LocalSettings, *, name: str, tag: str, dockerfile: str, binary: Path
) -> Path:
    """Write (once per version) the OCI archive of a one-binary FROM-scratch image."""
    out = s.build.cache_dir / "images" / f"{name}-{tag.rsplit(':', 1)[1]}.tar"
    if out.exists():
        return out
    context = s.build.cache_dir / "image-contexts" / name
    shutil.rmtree(context, ignore_errors=True)
    context.mkdir(parents=True)
    (context / "Dockerfile").write_text(dockerfile)
    shutil.copy2(binary, context / binary.name)
    archives.build_image(context=context, tag=tag, output=out)
    return out


def import_image(s: LocalSettings, ctr_path: Path, archive: Path) -> str:
    """Import an OCI/Docker archive into namespace k8s.io and pin it against image GC."""
    ctr = [str(ctr_path), "--address", str(s.containerd_socket), "-n", "k8s.io"]
    log = s.log_dir / "load-image.log"
    commands.run(
        [*ctr, "images", "import", "--platform", "linux/amd64", str(archive)],
        log_path=log,
        error=RunError,
    )
    ref = archives.image_name(archive)
    commands.run(
        [*ctr, "images", "label", ref, "io.cri-containerd.pinned=pinned"],
        log_path=log,
        error=RunError,
    )
    return ref


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _step_control_plane(c: Creation) -> None:
    s, bins = c.settings, c.bins
    assert bins is not None
    pki.make_all(
        directory=s.pki_dir, node_name=s.node_name, server=s.server, sans=s.sans()
    )
    kdir = s.state_dir / "config"
    containerd_cfg = _write(
        kdir / "containerd.toml",
        configs.containerd_config(
            s,
            runc=bins.runc / "runc",
            shim=bins.containerd / "containerd-shim-runc-v2",
            cni_bin=bins.cni,
        ),
    )
    _write(s.state_dir / "cni" / "net.d" / "10-wpc.conflist", configs.cni_conflist(s))
    _write(s.state_dir / "kubelet" / "resolv.conf", configs.pod_resolv_conf(s))
    kubelet_cfg = _write(kdir / "kubelet.yaml", configs.kubelet_config(s))
    proxy_cfg = _write(kdir / "kube-proxy.yaml", configs.kube_proxy_config(s))
    sched_cfg = _write(kdir / "scheduler.yaml", configs.scheduler_config(s))
    authn_cfg = _write(
        kdir / "apiserver-authentication.yaml", configs.authentication_config()
    )
    start = _starter(s)
    # containerd and etcd need nothing else: start both before waiting on either.
    ctrd = start(components.containerd(s, bins.containerd, containerd_cfg))
    etcd = start(components.etcd(s, bins.etcd))
    processes.wait_healthy(etcd)
    api = start(components.apiserver(s, bins.kubernetes, authn_cfg))
    processes.wait_healthy(ctrd)
    for tag, name, dockerfile, binary in (
        (pins.SANDBOX_IMAGE, "pause", addons.PAUSE_DOCKERFILE, bins.pause / "pause"),
        (
            addons.COREDNS_IMAGE,
            "coredns",
            addons.COREDNS_DOCKERFILE,
            bins.coredns / "coredns",
        ),
    ):
        import_image(
            s,
            bins.containerd / "ctr",
            ensure_image(s, name=name, tag=tag, dockerfile=dockerfile, binary=binary),
        )
    processes.wait_healthy(api)
    later = [
        start(components.controller_manager(s, bins.kubernetes)),
        start(components.scheduler(s, bins.kubernetes, sched_cfg)),
        start(components.kubelet(s, bins.kubernetes, kubelet_cfg)),
        start(components.kube_proxy(s, bins.kubernetes, proxy_cfg)),
    ]
    client = kubeapi.Client(s)
    client.bind_apiserver_to_kubelet()
    client.apply(addons.coredns_manifests(s))
    client.apply([marker.manifest(provider="local", name=s.name)])
    for started in later:
        processes.wait_healthy(started)
    client.wait_node_ready(s.node_name)
    client.wait_deployment_available("kube-system", "coredns")


def _starter(s: LocalSettings) -> Callable[[processes.Component], processes.Started]:
    def start(comp: processes.Component) -> processes.Started:
        return processes.start(comp, log_dir=s.log_dir, run_dir=s.run_dir)

    return start


def create(s: LocalSettings, *, retain: bool = False) -> Creation:
    """Create the cluster; on failure delete it again unless `retain`."""
    c = Creation(settings=s)
    if s.state_dir.exists() and processes.processes_under(str(s.state_dir)):
        # `up` means "make sure it is up": a healthy running cluster is success,
        # so `make conformance` and `make test` can both call it.
        try:
            kubeapi.Client(s).wait_node_ready(s.node_name)
        except Exception as exc:
            raise ClusterError(
                f"local cluster {s.name!r} is running (state {s.state_dir}) but not "
                f"healthy: {exc}; run `python -m clusters down --name {s.name}` first"
            ) from exc
        logger.info("Cluster %s is already running; its node is Ready.", s.name)
        return c
    steps: list[tuple[str, Callable[[Creation], None]]] = [
        ("build binaries", lambda c: setattr(c, "bins", ensure_binaries(c.settings))),
        ("clean stale state", lambda c: _discard(delete(c.settings, check=False))),
        ("prepare host", lambda c: host.prepare(c.settings)),
        ("start control plane and node", _step_control_plane),
        ("check the network guards", lambda c: _check_guards(c.settings)),
    ]
    for name, step in steps:
        t0 = time.monotonic()
        logger.info("Step: %s.", name)
        try:
            with commands.heartbeat(f"in step {name}"):
                step(c)
        except BaseException as exc:
            _roll_back(s, step=name, error=exc, retain=retain)
            raise
        c.timings[name] = time.monotonic() - t0
    return c


def _check_guards(s: LocalSettings) -> None:
    """The guards are still first once kube-proxy and the CNI plugins have run.

    CoreDNS is available by now, so both have written their rules: a guard
    they displaced would let pod traffic out (or others in) from here on.
    """
    problems = host.guard_problems(s)
    if problems:
        raise ClusterError(
            "the network guards are not in place: " + "; ".join(problems)
        )


def _roll_back(
    s: LocalSettings, *, step: str, error: BaseException, retain: bool
) -> None:
    """Undo a failed or interrupted `create` (unless `retain`), saying what is left.

    A signal (`interrupting.Signalled`) is re-raised as an `Interrupted` whose
    message says whether the rollback left anything; so is a failure during which
    a signal arrived (the user asked to stop: the failure is secondary, kept as
    the cause).
    """
    what = "was interrupted" if isinstance(error, interrupting.Signalled) else "failed"
    if retain:
        logger.error("Step %r %s; keeping what it made (--retain).", step, what)
        outcome = (
            f"kept for debugging (--retain) after step {step!r}; remove it with "
            f"`python -m clusters down --name {s.name}`"
        )
    else:
        logger.error("Step %r %s; rolling back (use --retain to keep it).", step, what)
        with interrupting.shielded():
            left = delete(s, check=False)
        outcome = f"rolled back step {step!r} and everything before it: " + (
            "nothing is left behind"
            if not left
            else "these are left behind:\n" + "\n".join(left)
        )
    signum = (
        error.signum
        if isinstance(error, interrupting.Signalled)
        else interrupting.received()
    )
    if signum is not None:
        raise Interrupted(signum, outcome=outcome) from error


def _discard(_: object) -> None:
    """Drop a step's return value (steps return nothing)."""


def delete(s: LocalSettings, *, check: bool = True) -> list[str]:
    """Tear the cluster down like `rm -f`: idempotent, and nothing left behind.

    Returns the leftovers (empty on success); with `check`, leftovers raise.
    """
    marker_text = str(s.state_dir)
    pids = processes.processes_under(marker_text)
    by_name = {p: _comm(p) for p in pids}
    kubelets = [p for p, n in by_name.items() if n == "kubelet"]
    processes.kill_all(kubelets)  # first, so it restarts nothing
    processes.kill_all(host.cgroup_pids(host.kubepods_cgroups()), timeout=5)
    processes.kill_all(processes.processes_under(marker_text))
    if s.state_dir.exists():
        proxy = _kube_proxy_binary(s)
        if proxy is not None:
            commands.run(
                [str(proxy), "--cleanup"],
                log_path=s.log_dir / "kube-proxy-cleanup.log",
                error=RunError,
            )
    mounts.unmount_below(s.state_dir)
    host.delete_links(s.bridge)
    for tool in ("iptables", "ip6tables"):
        host.remove_iptables(tool)
    host.remove_routes(s)
    host.remove_cgroups(host.kubepods_cgroups())
    shutil.rmtree(s.state_dir, ignore_errors=True)
    left = leftovers(s)
    if left and check:
        raise ClusterError("down left things behind:\n" + "\n".join(left))
    return left


def _kube_proxy_binary(s: LocalSettings) -> Path | None:
    path = (
        building.component_dir(s.build, "kubernetes", pins.KUBERNETES)
        / "bin"
        / "kube-proxy"
    )
    return path if path.exists() else None


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def leftovers(s: LocalSettings) -> list[str]:
    """Everything of the cluster still present on the host (empty = clean)."""
    found = [
        f"process {p} ({_comm(p)})" for p in processes.processes_under(str(s.state_dir))
    ]
    found += [f"mount {m}" for m in mounts.mounts_below(s.state_dir)]
    found += [f"interface {link}" for link in host.bridge_links(s.bridge)]
    for tool in ("iptables", "ip6tables"):
        found += [f"{tool} {line}" for line in host.owned_rules(tool)]
    found += [f"route {r}" for r in host.blackhole_routes(s)]
    found += [f"cgroup {c}" for c in host.kubepods_cgroups()]
    found += [
        f"container process {p}" for p in host.cgroup_pids(host.kubepods_cgroups())
    ]
    if s.state_dir.exists():
        found.append(f"state dir {s.state_dir}")
    return found
