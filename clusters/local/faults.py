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
import time
from pathlib import Path

from clusters.base import ComponentRestart
from clusters.errors import ClusterError
from clusters.local import components
from clusters.local import processes
from clusters.local.settings import LocalSettings

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
    return components.apiserver(s, bin_dir).probe


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
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cgroup = (entry / "cgroup").read_text()
            except OSError:
                continue  # intentionally ignore: the process exited while we looked
            if container_id in cgroup:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(entry.name), signal)
                    found.append(int(entry.name))
        if not found:
            raise ClusterError(f"no process of container {container_id} on this node")
        return found
