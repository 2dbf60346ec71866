"""Debian packages the local provider and the image builds need, installed when missing."""

from __future__ import annotations

import logging
from pathlib import Path

from clusters.errors import RunError
from plumbing import commands

logger = logging.getLogger(__name__)

PACKAGES = (
    "iptables",  # kube-proxy (iptables mode), CNI portmap/firewall, our egress guard
    "kmod",  # modprobe overlay / br_netfilter
    "iproute2",  # `ip`: blackhole routes, pod network cuts (a minbase Debian lacks it)
    "libseccomp-dev",  # runc is built with cgo + seccomp
    "pkg-config",
    "gcc",
    "libc6-dev",  # static pause
    "binutils",
    "busybox-static",  # the test image's userland
    "python3-venv",  # Debian's Python packs the static executor (staticx needs it)
    "python3-dev",
    "patchelf",
)


def missing(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Packages dpkg does not report as installed."""
    out = commands.attempt(
        ["dpkg-query", "-W", "-f", "${Package} ${db:Status-Status}\n", *packages]
    ).stdout
    installed = {
        line.split()[0] for line in out.splitlines() if line.endswith(" installed")
    }
    return [p for p in packages if p not in installed]


def ensure(log_path: Path) -> list[str]:
    """apt-get install whatever is missing; return what was installed."""
    todo = missing()
    if todo:
        logger.info("Installing host packages: %s.", " ".join(todo))
        apt_install(todo, log_path)
    return todo


def apt_install(packages: list[str], log_path: Path) -> None:
    """`apt-get update` then `apt-get install -y` of `packages`, non-interactively."""
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    commands.run(
        ["apt-get", "update", "-qq"], log_path=log_path, env=env, error=RunError
    )
    commands.run(
        ["apt-get", "install", "-y", "-qq", *packages],
        log_path=log_path,
        env=env,
        error=RunError,
    )
