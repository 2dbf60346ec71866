"""Where the project's own Docker engine keeps its state, apart from everything else.

The engine exists for the kind provider only. Its dockerd and the containerd
under it have their own root, state, sockets and logs, so they never meet the
local provider's containerd (`/var/lib/wpc/<name>`) nor a Docker the user may
run on the default socket.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DockerSettings:
    """Paths and names of the project's Docker engine. Defaults fit the project's machines."""

    state_root: Path = Path("/var/lib/wpc-docker")
    """Persistent state: image store, containerd content, logs (kept across `down`)."""
    run_root: Path = Path("/run/wpc-docker")
    """Runtime state: sockets, pid files, the runtime wrapper (gone after a reboot)."""
    runtime_name: str = "wpc-runc"
    """Name of the runtime dockerd runs containers with (our wrapper, or plain runc)."""
    runc: Path = Path("/usr/sbin/runc")
    """Debian's runc, the one docker.io is built and tested against."""
    python: Path = Path("/usr/bin/python3")
    """Interpreter of the runtime wrapper: the system's, which outlives any venv."""
    search_path: str = "/usr/bin:/usr/sbin:/usr/local/bin:/bin:/sbin"
    """PATH of docker and kind commands; from_env puts Debian's docker CLI first."""
    external: str = ""
    """DOCKER_HOST of an engine someone else runs (the kind provider's `host` mode);
    empty: ours. An external engine is only ever talked to, never started or stopped."""

    @classmethod
    def from_env(cls) -> DockerSettings:
        """Read WPC_DOCKER_DIR (see docs/environment-variables.md)."""
        root = os.environ.get("WPC_DOCKER_DIR")
        # /usr/local/bin may hold another docker CLI (a static 28.x one on the
        # project's machines); Debian's CLI matches the daemon's API exactly.
        path = "/usr/bin:/usr/sbin:" + os.environ.get("PATH", "/usr/local/bin:/bin")
        if root:
            return cls(
                state_root=Path(root),
                run_root=Path(root) / "run",
                search_path=path,
            )
        return cls(search_path=path)

    @property
    def socket(self) -> Path:
        """dockerd's API socket: never the default /var/run/docker.sock."""
        return self.run_root / "docker.sock"

    @property
    def host(self) -> str:
        """The DOCKER_HOST value that reaches the engine (ours unless `external`)."""
        return self.external or f"unix://{self.socket}"

    @property
    def containerd_socket(self) -> Path:
        """The socket of dockerd's own containerd."""
        return self.run_root / "containerd" / "containerd.sock"

    @property
    def log_dir(self) -> Path:
        """One log per daemon, plus the setup log."""
        return self.state_root / "logs"

    @property
    def wrapper(self) -> Path:
        """The runtime wrapper dockerd is told to use."""
        return self.run_root / "bin" / self.runtime_name

    def env(self) -> dict[str, str]:
        """Environment for docker and kind commands: our daemon, Debian's CLI first."""
        return {"DOCKER_HOST": self.host, "PATH": self.search_path}
