"""Which TCP ports the local cluster's processes listen on, read from /proc.

Each component process's socket inodes (its /proc/<pid>/fd links) are joined
with the LISTEN rows of /proc/<pid>/net/tcp and tcp6 (the process's own
network namespace), so every listener is named by the component that owns it.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from clusters.machine import processes

LISTEN = "0A"


@dataclass(frozen=True, order=True)
class Listener:
    """One listening socket: who, where."""

    component: str
    address: str
    port: int


def _decode(hex_address: str) -> tuple[str, int]:
    """/proc/net/tcp{,6} `local_address`: host-order 32-bit words, then the port."""
    addr_hex, port_hex = hex_address.split(":")
    raw = bytes.fromhex(addr_hex)
    # each 4-byte word is printed in host (little-endian) order
    packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(packed)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return str(address), int(port_hex, 16)


def _listening_inodes(pid: int) -> dict[int, tuple[str, int]]:
    found: dict[int, tuple[str, int]] = {}
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if cols[3] == LISTEN:
                found[int(cols[9])] = _decode(cols[1])
    return found


def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        entries = list(fd_dir.iterdir())
    except OSError:
        return inodes
    for fd in entries:
        try:
            target = os.readlink(fd)
        except OSError:
            continue  # closed while we looked
        if target.startswith("socket:["):
            inodes.add(int(target[len("socket:[") : -1]))
    return inodes


def component_name(pid: int) -> str:
    """The executable's name, as processes.COMPONENT_EXECUTABLES spells it."""
    return Path(os.readlink(f"/proc/{pid}/exe")).name.removesuffix(" (deleted)")


def of_cluster(state_dir: Path) -> set[Listener]:
    """Every TCP listener owned by a process of the cluster under `state_dir`."""
    listeners = set()
    for pid in processes.processes_under(str(state_dir)):
        try:
            name = component_name(pid)
        except OSError:
            continue  # exited while we looked
        table = _listening_inodes(pid)
        for inode in _socket_inodes(pid) & table.keys():
            address, port = table[inode]
            listeners.add(Listener(name, address, port))
    return listeners
