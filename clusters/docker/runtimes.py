"""Which OCI runtime dockerd gets: plain runc, or runc behind the capability wrapper.

The decision is read from the host, not assumed: the capabilities the kernel
knows (`/proc/sys/kernel/cap_last_cap`) that are missing from this process's
bounding set (`CapBnd` in `/proc/self/status`) are the ones Docker would hand
to a privileged container and runc could not apply. None missing: plain runc.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

from clusters.docker import capwrapper
from clusters.docker.settings import DockerSettings

logger = logging.getLogger(__name__)

CAPABILITIES = (
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
)
"""Capability names by bit number (linux/capability.h)."""


def withheld(status: str, last_cap: int) -> list[str]:
    """Capabilities up to `last_cap` missing from the CapBnd line of a /proc status text."""
    for line in status.splitlines():
        if line.startswith("CapBnd:"):
            mask = int(line.split()[1], 16)
            break
    else:
        raise ValueError("no CapBnd line in the process status")
    top = min(last_cap, len(CAPABILITIES) - 1)
    return [CAPABILITIES[bit] for bit in range(top + 1) if not mask >> bit & 1]


def host_withheld(proc: Path = Path("/proc")) -> list[str]:
    """What this host withholds from its bounding set (empty on most hosts)."""
    return withheld(
        (proc / "self" / "status").read_text(),
        int((proc / "sys" / "kernel" / "cap_last_cap").read_text()),
    )


def install(s: DockerSettings, drop: list[str]) -> Path:
    """Put the runtime in place and return the path dockerd should register.

    Nothing to drop: runc itself. Otherwise the wrapper, started by the
    system's Python, with its settings file beside it.
    """
    if not drop:
        logger.info("The host withholds no capability; dockerd uses %s.", s.runc)
        return s.runc
    s.wrapper.parent.mkdir(parents=True, exist_ok=True)
    source = Path(capwrapper.__file__).read_text()
    s.wrapper.write_text(f"#!{s.python}\n{source}")
    s.wrapper.chmod(0o755)
    settings = {"runc": str(s.runc), "drop": drop}
    s.wrapper.with_suffix(".json").write_text(json.dumps(settings))
    logger.info(
        "The host withholds %s; dockerd runs containers through %s, which removes them.",
        ", ".join(drop),
        s.wrapper,
    )
    return s.wrapper


def remove(s: DockerSettings) -> None:
    """Remove the wrapper (after dockerd stopped)."""
    shutil.rmtree(s.wrapper.parent, ignore_errors=True)
