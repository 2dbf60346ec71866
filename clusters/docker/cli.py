"""Run the docker CLI against the project's own dockerd (never the default socket)."""

from __future__ import annotations

from pathlib import Path

from clusters.docker.settings import DockerSettings
from clusters.errors import RunError
from plumbing import commands


def run(s: DockerSettings, *args: str, log_path: Path) -> None:
    """`docker ARGS`, output appended to `log_path`; RunError with evidence on failure."""
    commands.run(["docker", *args], log_path=log_path, env=s.env(), error=RunError)


def capture(s: DockerSettings, *args: str, stdin: str | None = None) -> str:
    """`docker ARGS`, returning stdout."""
    return commands.capture(["docker", *args], env=s.env(), stdin=stdin, error=RunError)


def succeeds(s: DockerSettings, *args: str) -> bool:
    """True if `docker ARGS` exits 0 (an answer, not an error: `image inspect` ...)."""
    return commands.attempt(["docker", *args], env=s.env()).returncode == 0
