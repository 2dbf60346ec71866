"""Debian bookworm root file systems from Debian's packages (mmdebstrap), cached by content.

The node image and the kube-proxy image start from these; nothing comes
from a container registry (issue 15). A root file system is cached as a tar
under `<cache>/components/kind-rootfs-<name>-<key>/rootfs.tar`, the key
hashing the suite and the package list, so changing either rebuilds it.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path

from clusters.errors import RunError
from plumbing import commands
from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings

logger = logging.getLogger(__name__)

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"

NODE_PACKAGES = (
    "systemd",
    "systemd-sysv",
    "dbus",
    "iptables",
    "iproute2",
    "conntrack",
    "ethtool",
    "kmod",
    "util-linux",
    "mount",
    "libseccomp2",  # runc is built with seccomp (cgo)
    "ca-certificates",
    "procps",
    "bash",
)
"""What kind's base image carries that a 1.36 node on containerd needs (no NFS,
iSCSI or fuse: no storage driver uses them here)."""

KUBE_PROXY_PACKAGES = ("iptables", "conntrack", "kmod")
"""kube-proxy's iptables mode shells out to iptables-restore and conntrack."""

EXCLUDED = ("/usr/share/man/*", "/usr/share/doc/*", "/usr/share/locale/*")


def key(packages: tuple[str, ...]) -> str:
    """Cache key of one root file system."""
    text = "\n".join((SUITE, MIRROR, *packages, *EXCLUDED))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def command(packages: tuple[str, ...], output: Path) -> list[str]:
    """The mmdebstrap command line: minbase plus `packages`, documentation left out."""
    argv = ["mmdebstrap", "--variant=minbase", f"--include={','.join(packages)}"]
    argv += [f"--dpkgopt=path-exclude={pattern}" for pattern in EXCLUDED]
    return [*argv, SUITE, str(output), MIRROR]


def ensure(settings: BuildSettings, *, name: str, packages: tuple[str, ...]) -> Path:
    """The cached root file system tar, made with mmdebstrap on first use."""
    target = gobuilding.component_dir(
        settings.cache_dir, f"kind-rootfs-{name}", key(packages)
    )
    tar = target / "rootfs.tar"
    if (target / gobuilding.STAMP).exists():
        return tar
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    logger.info("Making the %s root file system with mmdebstrap.", name)
    commands.run(
        command(packages, tar),
        log_path=settings.cache_dir / "logs" / f"kind-rootfs-{name}.log",
        error=RunError,
    )
    (target / gobuilding.STAMP).write_text(key(packages) + "\n")
    return tar
