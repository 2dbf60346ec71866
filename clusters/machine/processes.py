"""Start host processes for cluster components, and prove they became healthy.

A component runs detached (its own session) so it outlives `clusters up`;
its output goes to `<state>/logs/<component>.log` and its pid to
`<state>/run/<component>.pid`. Start-up reports whether the process became
healthy, exited, or timed out, with the command and the log's tail.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import signal
import ssl
import subprocess
import urllib.request
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clusters.errors import ComponentStartError
from clusters.errors import WaitTimeout
from clusters.machine import interrupting
from plumbing.waiting import Abort
from plumbing.waiting import NotYet
from plumbing.waiting import until

logger = logging.getLogger(__name__)

Probe = Callable[[], "str | NotYet"]
"""Says what it saw: the observation when healthy, `NotYet(observation)` when not."""

PROBE_INTERVAL = 0.2
"""Seconds between two health probes: start-up is on the critical path of `up`."""


@dataclass(frozen=True)
class Component:
    """A process to run: its name, argv and how to tell it is healthy."""

    name: str
    command: tuple[str, ...]
    probe: Probe
    timeout: float = 60.0
    env: Mapping[str, str] | None = None


@dataclass
class Started:
    """A started component, not yet known to be healthy."""

    component: Component
    process: subprocess.Popen[bytes]
    log_path: Path


_OUTLIVING: dict[int, subprocess.Popen[bytes]] = {}
"""Daemons started here that outlive the call that started them (containerd, dockerd,
the control plane), by pid. Holding their Popen objects keeps Python from warning
that a child is still running when the object is collected; `kill_all` reaps them
so a stopped daemon is not left as a zombie of a long-lived caller (a test run)."""


def start(component: Component, *, log_dir: Path, run_dir: Path) -> Started:
    """Start `component` detached, logging to `<log_dir>/<name>.log`."""
    log_dir.mkdir(parents=True, exist_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{component.name}.log"
    env = dict(os.environ)
    env.update(component.env or {})
    # Deferred: a signal landing inside Popen would lose the pid of a child that
    # then becomes the daemon and outlives the rollback (interrupting.deferred).
    with interrupting.deferred(), log_path.open("ab") as log:
        log.write(f"\n$ {shlex.join(component.command)}\n".encode())
        log.flush()
        try:
            proc = subprocess.Popen(
                list(component.command),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                preexec_fn=interrupting.unblock_in_child,
            )
        except OSError as exc:
            raise ComponentStartError(
                component=component.name,
                command=component.command,
                log_path=log_path,
                reason=f"could not execute: {exc}",
            ) from exc
        _OUTLIVING[proc.pid] = proc
        (run_dir / f"{component.name}.pid").write_text(f"{proc.pid}\n")
        logger.info("Started %s (pid %d, log %s).", component.name, proc.pid, log_path)
    return Started(component=component, process=proc, log_path=log_path)


def wait_healthy(started: Started) -> None:
    """Wait until the probe passes; raise ComponentStartError if it exits or times out."""
    comp = started.component

    def probe() -> str | NotYet:
        code = started.process.poll()
        if code is not None:
            raise _Exited(code)
        return comp.probe()

    try:
        until(
            probe,
            timeout=comp.timeout,
            interval=PROBE_INTERVAL,
            describe=f"{comp.name} to become healthy",
            # a component that is still starting refuses connections: not yet
            ignoring=(Exception,),
            error=WaitTimeout,
        )
    except _Exited as exc:
        raise ComponentStartError(
            component=comp.name,
            command=comp.command,
            log_path=started.log_path,
            reason=f"the process exited with code {exc.code}",
        ) from None
    except WaitTimeout as exc:
        raise ComponentStartError(
            component=comp.name,
            command=comp.command,
            log_path=started.log_path,
            reason=str(exc),
        ) from None


class _Exited(Abort):
    """The process died: no point waiting for it to become healthy."""

    def __init__(self, code: int) -> None:
        self.code = code


TLS = Callable[[], ssl.SSLContext]
"""Makes the TLS context of a probe, at probe time: the files it loads may not exist
yet when the component is described, and a context per call sees rotated ones."""


def http_probe(url: str, *, tls: TLS | None = None, expect: str = "") -> Probe:
    """A probe that passes when GET `url` answers 200 (and contains `expect`)."""

    def probe() -> str | NotYet:
        try:
            context = tls() if tls else None
            with urllib.request.urlopen(url, timeout=2, context=context) as resp:
                body = resp.read(4096).decode(errors="replace")
        except OSError as exc:
            return NotYet(f"{url}: {exc}")
        seen = f"HTTP {resp.status}: {body[:200]}"
        return seen if resp.status == 200 and expect in body else NotYet(seen)

    return probe


def insecure_context() -> ssl.SSLContext:
    """TLS without verification, for health probes of self-signed local endpoints."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def server_context(*, ca: Path) -> TLS:
    """Verified TLS without a client certificate (an anonymous caller)."""
    return lambda: ssl.create_default_context(cafile=str(ca))


def client_context(*, ca: Path, cert: Path, key: Path) -> TLS:
    """Verified TLS with a client certificate."""

    def make() -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(ca))
        ctx.load_cert_chain(str(cert), str(key))
        return ctx

    return make


COMPONENT_EXECUTABLES = frozenset(
    {
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
        "containerd",
        "containerd-shim-runc-v2",
        "runc",
    }
)
"""What the cluster runs on the host. Clients (kubectl, pytest, a user's shell) that
merely name the state dir on their command line, e.g. its kubeconfig, are not ours."""


def processes_under(marker: str) -> list[int]:
    """Pids of cluster components whose command line mentions `marker` (our state dir)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (
                (entry / "cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
            )
            exe = Path(os.readlink(entry / "exe")).name.removesuffix(" (deleted)")
        except OSError:
            continue  # intentionally ignore: the process exited while we looked
        if marker in cmdline and exe in COMPONENT_EXECUTABLES:
            pids.append(int(entry.name))
    return pids


def kill_all(pids: Sequence[int], *, timeout: float = 15.0) -> None:
    """SIGTERM the pids, then SIGKILL whatever is left after `timeout`.

    Our own children are reaped here; one that outlives even SIGKILL stays in the
    reaping table (and is logged) rather than being dropped while it still runs.
    """
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.kill(pid, sig)
        try:
            until(
                lambda: _all_exited(pids),
                timeout=timeout,
                describe="processes to exit",
                interval=0.1,
                error=WaitTimeout,
            )
            break
        except WaitTimeout:
            continue
    survivors = [pid for pid in pids if _alive(pid)]
    if survivors:
        logger.error("Still running after SIGKILL and %.0f s: %s.", timeout, survivors)
    for pid in pids:
        if pid not in survivors:
            _OUTLIVING.pop(pid, None)


def _all_exited(pids: Sequence[int]) -> str | NotYet:
    alive = [p for p in pids if _alive(p)]
    return NotYet(f"still alive: {alive}") if alive else "all exited"


def _alive(pid: int) -> bool:
    """True while any thread of `pid` runs; a child of ours counts until it is reaped.

    A process whose main thread has exited shows as a zombie in `/proc/<pid>/stat`
    while its other threads still run (a Go daemon during exit does this), and it
    cannot be reaped until they are gone: the leader's state alone is not enough.
    """
    child = _OUTLIVING.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # intentionally ignore: that thread is gone
        if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
            return True
    return False
