"""Node faults of the local provider: restart a component, signal a container.

A component is restarted exactly as it runs: its command line and environment
are read from /proc before it is stopped, so the restart cannot drift from
however `up` started it (this module does not rebuild the command). Its pid
file and log file are the ones `up` uses. Containers are found by their
runtime id in the processes' cgroup paths, which the kubelet and containerd
give every container.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

from clusters.base import ComponentRestart
from clusters.errors import ClusterError
from clusters.errors import RunError
from clusters.local import components
from clusters.local.settings import LocalSettings
from clusters.machine import processes
from plumbing import commands

logger = logging.getLogger(__name__)

RESTARTABLE = ("kubelet", "containerd", "kube-apiserver")


def _pid(s: LocalSettings, component: str) -> int:
    pid_file = s.run_dir / f"{component}.pid"
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError) as exc:
        raise ClusterError(f"cannot read the pid of {component}: {exc}") from exc
    exe = Path(os.readlink(f"/proc/{pid}/exe")).name.removesuffix(" (deleted)")
    if exe != component:
        raise ClusterError(f"pid {pid} in {pid_file} is {exe}, not {component}")
    return pid


def _probe(s: LocalSettings, component: str, argv: list[str]) -> processes.Probe:
    bin_dir = Path(argv[0]).parent
    if component == "kubelet":
        return components.kubelet(s, bin_dir, Path()).probe
    if component == "containerd":
        return components.containerd(
            s, bin_dir, Path(argv[argv.index("--config") + 1])
        ).probe
    return _apiserver_probe(s, argv)


def _flag(argv: list[str], name: str, default: str) -> str:
    prefix = f"--{name}="
    return next((a[len(prefix) :] for a in argv if a.startswith(prefix)), default)


def _apiserver_probe(s: LocalSettings, argv: list[str]) -> processes.Probe:
    """`/readyz` where this command line serves it (its bind address and port)."""
    host = _flag(argv, "bind-address", "127.0.0.1")
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    port = _flag(argv, "secure-port", str(s.api_port))
    return processes.http_probe(
        f"https://{host}:{port}/readyz",
        # Anonymous on purpose, like the component's own probe: health paths only.
        tls=processes.server_context(ca=s.pki_dir / "server-ca.crt"),
        expect="ok",
    )


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pairs = (item.decode(errors="replace").partition("=") for item in raw if item)
    return {k: v for k, _, v in pairs}


class LocalNodeFaults:
    """Implements clusters.base.NodeFaults for the local provider."""

    def restart_component(
        self, cluster: str, component: str, *, down_seconds: float = 0.0
    ) -> ComponentRestart:
        """Stop `component` (SIGTERM, then SIGKILL), keep it down, start it again."""
        if component not in RESTARTABLE:
            raise ClusterError(f"cannot restart {component!r}; one of {RESTARTABLE}")
        s = LocalSettings.from_env(cluster)
        old = _pid(s, component)
        argv = Path(f"/proc/{old}/cmdline").read_bytes().decode().split("\0")[:-1]
        env = _environ(old)
        processes.kill_all([old])
        stopped = time.time()
        logger.info("Stopped %s (pid %d).", component, old)
        if down_seconds > 0:
            # The fault's duration ("down for 20 s"), not a wait for a state.
            time.sleep(down_seconds)  # noqa: sleep-ok - the outage is the fault
        started = processes.start(
            processes.Component(
                name=component,
                command=tuple(argv),
                probe=_probe(s, component, argv),
                timeout=90.0,
                env=env,
            ),
            log_dir=s.log_dir,
            run_dir=s.run_dir,
        )
        processes.wait_healthy(started)
        return ComponentRestart(
            component=component,
            old_pid=old,
            new_pid=started.process.pid,
            stopped_at=stopped,
            healthy_at=time.time(),
        )

    def signal_container(
        self, cluster: str, container_id: str, signal: int
    ) -> list[int]:
        """Send `signal` to every process whose cgroup names `container_id`."""
        if len(container_id) < 12:
            raise ClusterError(f"not a container id: {container_id!r}")
        found = []
        for entry, cgroup in _cgroups():
            if container_id in cgroup:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(entry.name), signal)
                    found.append(int(entry.name))
        if not found:
            raise ClusterError(f"no process of container {container_id} on this node")
        return found

    def cut_api_access(
        self, cluster: str, pod_uid: str
    ) -> tuple[str, Callable[[], None]]:
        """REJECT (TCP reset) the container's pod traffic to the API server.

        The rules go into the pod's own network namespace (OUTPUT chain, entered
        with nsenter through the pod's sandbox process, which outlives container
        restarts), so nothing on the host changes and a pod that dies takes them
        with it. Both the Service port (443) and the API server's own port are cut.
        """
        s = LocalSettings.from_env(cluster)
        rules = [
            [
                "OUTPUT",
                "-p",
                "tcp",
                "--dport",
                port,
                "-j",
                "REJECT",
                "--reject-with",
                "tcp-reset",
            ]
            for port in ("443", str(s.api_port))
        ]
        return self._reject(pod_uid, rules, probe_address=(s.node_ip, str(s.api_port)))

    def cut_egress(self, cluster: str, pod_uid: str) -> tuple[str, Callable[[], None]]:
        """REJECT the container's pod TCP traffic to anything but the API server.

        What a pod sees when a service it depends on (an artifact repository)
        is down: connections refused, while it can still report to the API.
        """
        s = LocalSettings.from_env(cluster)
        keep = f"443,{s.api_port}"
        rules = [
            [
                "OUTPUT",
                "-p",
                "tcp",
                "-m",
                "multiport",
                "!",
                "--dports",
                keep,
                "-o",
                "eth0",
                "-j",
                "REJECT",
                "--reject-with",
                "tcp-reset",
            ],
        ]
        return self._reject(pod_uid, rules, probe_address=(s.dns_service_ip, "53"))

    def _reject(
        self,
        pod_uid: str,
        rules: list[list[str]],
        *,
        probe_address: tuple[str, str],
    ) -> tuple[str, Callable[[], None]]:
        pid = self._sandbox_pid(pod_uid)
        enter = ["nsenter", "-t", str(pid), "-n"]
        for rule in rules:
            commands.capture([*enter, "iptables", "-I", *rule], error=RunError)
        lifted = threading.Event()

        def lift() -> None:
            if lifted.is_set():
                return
            lifted.set()
            for rule in rules:
                done = commands.attempt([*enter, "iptables", "-D", *rule], timeout=10)
                if done.returncode != 0:  # the pod may be gone, and its rules with it
                    logger.warning(
                        "Could not lift %s in pod %s: %s", rule, pod_uid, done.stderr
                    )

        probe = commands.attempt(
            [*enter, sys.executable, "-c", _CONNECT, *probe_address], timeout=10
        )
        evidence = (probe.stdout + probe.stderr).strip()
        if "refused" not in evidence:
            lift()
            raise ClusterError(f"the cut did not take: {evidence!r}")
        return f"from pid {pid}'s network: {evidence}", lift

    @staticmethod
    def _sandbox_pid(pod_uid: str) -> int:
        """The pod's sandbox (pause) process: it holds the pod's network namespace."""
        forms = (pod_uid, pod_uid.replace("-", "_"))
        members = []
        for entry, cgroup in _cgroups():
            if not any(form in cgroup for form in forms):
                continue
            try:
                exe = Path(os.readlink(entry / "exe")).name
            except OSError:
                continue  # intentionally ignore: the process exited while we looked
            members.append((exe != "pause", int(entry.name)))
        if not members:
            raise ClusterError(f"no process of pod {pod_uid} on this node")
        return min(members)[1]


def _cgroups() -> Iterator[tuple[Path, str]]:
    """Each process of the node, as its /proc entry and the text of its cgroup file.

    A process that exits while the table is read is passed over: a fault looks
    for a container's or a pod's processes by cgroup, and a gone one has none.
    """
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cgroup = (entry / "cgroup").read_text()
        except OSError:
            continue  # intentionally ignore: the process exited while we looked
        yield entry, cgroup


_CONNECT = """
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), 3).close()
    print("connected")
except OSError as exc:
    print(f"connect to {sys.argv[1]}:{sys.argv[2]}: {exc}")
"""
