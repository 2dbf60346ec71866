"""Start and stop the project's dockerd and the containerd under it, as host processes.

There is no systemd on the project's machines, so both daemons run detached
like the local provider's components (`clusters.machine.processes`): their
output goes to `<state>/logs/<daemon>.log`, their pid to `<run>/<daemon>.pid`,
and start-up reports whether each became healthy, exited or timed out.
dockerd is told its containerd's socket explicitly; without that it would
adopt any `/run/containerd/containerd.sock` it finds.
"""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

from clusters.docker.settings import DockerSettings
from clusters.machine import processes
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

DAEMON_EXECUTABLES = frozenset(
    {"dockerd", "containerd", "containerd-shim-runc-v2", "docker-proxy"}
)
"""What our engine runs on the host (clients naming our socket are not ours)."""

START_TIMEOUT = 60.0
"""Seconds for either daemon to answer on its socket after it was started."""

STOP_TIMEOUT = 30.0
"""Seconds dockerd gets to stop its containers after SIGTERM before SIGKILL."""


def containerd_config(s: DockerSettings) -> str:
    """containerd 1.6 config: own root, state and sockets; no CRI (Docker needs none)."""
    sock = s.containerd_socket
    return (
        "version = 2\n"
        f'root = "{s.state_root / "containerd"}"\n'
        f'state = "{s.run_root / "containerd" / "state"}"\n'
        'disabled_plugins = ["io.containerd.grpc.v1.cri"]\n'
        "[grpc]\n"
        f'  address = "{sock}"\n'
        "[ttrpc]\n"
        f'  address = "{sock}.ttrpc"\n'
        "[debug]\n"
        '  address = ""\n'
        '[plugins."io.containerd.internal.v1.opt"]\n'
        f'  path = "{s.state_root / "containerd-opt"}"\n'
    )


def containerd_command(s: DockerSettings, config: Path) -> tuple[str, ...]:
    """Debian's containerd with our config."""
    return ("/usr/bin/containerd", "--config", str(config))


def dockerd_command(s: DockerSettings, runtime: Path) -> tuple[str, ...]:
    """dockerd on our containerd, socket, roots and runtime; no docker0 bridge."""
    return (
        "/usr/sbin/dockerd",
        "--host",
        s.host,
        "--containerd",
        str(s.containerd_socket),
        "--data-root",
        str(s.state_root / "data"),
        "--exec-root",
        str(s.run_root / "exec"),
        "--pidfile",
        str(s.run_root / "dockerd.pid"),
        "--config-file",
        str(s.state_root / "daemon.json"),
        "--add-runtime",
        f"{s.runtime_name}={runtime}",
        "--default-runtime",
        s.runtime_name,
        # kind makes its own network; the default bridge is one more thing on the host.
        "--bridge",
        "none",
    )


def ping(sock: Path, *, http: bool) -> str | NotYet:
    """Probe a daemon socket: connectable (containerd) or answering /_ping (dockerd)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(str(sock))
            if not http:
                return f"{sock} accepts connections"
            conn.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            answer = conn.recv(4096).decode(errors="replace")
    except OSError as exc:
        return NotYet(f"{sock}: {exc}")
    return answer if answer.endswith("OK") else NotYet(f"{sock}: {answer[-200:]}")


def running(s: DockerSettings) -> bool:
    """True when our dockerd answers on its socket."""
    return bool(ping(s.socket, http=True))


def start(s: DockerSettings, runtime: Path) -> None:
    """Start containerd, then dockerd, each proven healthy before going on."""
    config_dir = s.state_root / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "containerd.toml").write_text(containerd_config(s))
    daemon_json = s.state_root / "daemon.json"
    if not daemon_json.exists():
        daemon_json.write_text("{}\n")
    run_dir = s.run_root / "pids"
    for component in (
        processes.Component(
            name="containerd",
            command=containerd_command(s, config_dir / "containerd.toml"),
            probe=lambda: ping(s.containerd_socket, http=False),
            timeout=START_TIMEOUT,
        ),
        processes.Component(
            name="dockerd",
            command=dockerd_command(s, runtime),
            probe=lambda: ping(s.socket, http=True),
            timeout=START_TIMEOUT,
            env={"PATH": s.search_path},
        ),
    ):
        started = processes.start(component, log_dir=s.log_dir, run_dir=run_dir)
        processes.wait_healthy(started)


def _daemons() -> list[tuple[int, str, str]]:
    """(pid, executable name, command line) of every engine daemon on the host."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            exe = Path(os.readlink(entry / "exe")).name.removesuffix(" (deleted)")
        except (OSError, UnicodeDecodeError):
            continue  # intentionally ignore: the process exited while we looked
        if exe in DAEMON_EXECUTABLES:
            found.append((int(entry.name), exe, cmdline))
    return found


def _is_ours(s: DockerSettings, cmdline: str) -> bool:
    return str(s.run_root) in cmdline or str(s.state_root) in cmdline


def ours(s: DockerSettings) -> list[int]:
    """Pids of our daemons and shims: their command line names our run directory."""
    return [pid for pid, _, cmdline in _daemons() if _is_ours(s, cmdline)]


def foreign_dockerds(s: DockerSettings) -> list[int]:
    """Pids of dockerd processes that are not ours (the host's own Docker, say).

    Every dockerd in a network namespace writes the same iptables chains
    (DOCKER, DOCKER-USER, DOCKER-ISOLATION-*), so while another one runs, those
    chains are partly its own and not ours to remove.
    """
    return [
        pid
        for pid, exe, cmdline in _daemons()
        if exe == "dockerd" and not _is_ours(s, cmdline)
    ]


def _named(pids: list[int], name: str) -> list[int]:
    found = []
    for pid in pids:
        try:
            exe = Path(os.readlink(f"/proc/{pid}/exe")).name
        except OSError:
            continue  # intentionally ignore: already gone
        if exe.removesuffix(" (deleted)") == name:
            found.append(pid)
    return found


def stop(s: DockerSettings) -> None:
    """Stop dockerd (it stops its containers), then containerd and any shim left."""
    pids = ours(s)
    processes.kill_all(_named(pids, "dockerd"), timeout=STOP_TIMEOUT)
    processes.kill_all(_named(ours(s), "containerd"))
    processes.kill_all(ours(s), timeout=5)
