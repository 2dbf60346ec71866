"""A network namespace linked to the host by a veth: a stand-in for another machine.

The proofs of the local cluster's network guards need somewhere for traffic to
go that is not this machine's own address and not another host: a namespace
made here, on a documentation range (198.51.100.0/30, RFC 5737) that no real
network routes. Packets sent there never leave the machine.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

HOST_SIDE = "198.51.100.1"
"""The host's end of the veth."""
FAR_SIDE = "198.51.100.2"
"""The namespace's end: the "other machine"."""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@contextmanager
def outside_namespace() -> Iterator[str]:
    """Yield the namespace's name; delete it and its veth afterwards."""
    tag = uuid.uuid4().hex[:6]
    ns, outer, inner = f"wpc-probe-{tag}", f"wpcp{tag}", f"wpcq{tag}"
    try:
        _ip("netns", "add", ns)
        _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        _ip("link", "set", inner, "netns", ns)
        _ip("addr", "add", f"{HOST_SIDE}/30", "dev", outer)
        _ip("link", "set", outer, "up")
        _ip("-n", ns, "addr", "add", f"{FAR_SIDE}/30", "dev", inner)
        _ip("-n", ns, "link", "set", inner, "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "route", "add", "default", "via", HOST_SIDE)
        yield ns
    finally:
        subprocess.run(
            ["ip", "link", "delete", outer], capture_output=True, check=False
        )
        subprocess.run(["ip", "netns", "delete", ns], capture_output=True, check=False)
