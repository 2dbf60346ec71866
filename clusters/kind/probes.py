"""Checks run inside a node container: a DNS question to CoreDNS, in plain bash.

The node image carries no DNS client, and the host cannot reach Service
addresses, so `up` asks CoreDNS through the kube-dns Service from inside the
control-plane node: bash writes a hand-made query to `/dev/udp/<ip>/53` and
`od` prints the reply's bytes, which are parsed here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

QUERY_ID = 0x5750  # "WP"
CLASS_IN = 1
TYPE_A = 1


def query(name: str) -> bytes:
    """A recursive DNS query for the A record of `name`."""
    header = struct.pack(">HHHHHH", QUERY_ID, 0x0100, 1, 0, 0, 0)
    labels = b"".join(
        bytes([len(part)]) + part.encode() for part in name.strip(".").split(".")
    )
    return header + labels + b"\0" + struct.pack(">HH", TYPE_A, CLASS_IN)


def command(server: str, packet: bytes, *, timeout: int = 2) -> list[str]:
    """The bash command that sends `packet` to `server`:53 and prints the reply in hex."""
    escaped = "".join(f"\\x{b:02x}" for b in packet)
    script = (
        f"exec 3<>/dev/udp/{server}/53 && printf '{escaped}' >&3 && "
        f"timeout {timeout} head -c 512 <&3 | od -An -v -tx1"
    )
    return ["bash", "-c", script]


@dataclass(frozen=True)
class Answer:
    """What a DNS reply said."""

    rcode: int
    answers: int
    addresses: tuple[str, ...]


def parse(hex_dump: str) -> Answer:
    """Parse `od -An -tx1` output of a reply to `query`; ValueError if it is not one."""
    data = bytes(int(word, 16) for word in hex_dump.split())
    if len(data) < 12:
        raise ValueError(f"a DNS reply has at least 12 bytes, got {len(data)}")
    ident, flags, _qd, ancount, _ns, _ar = struct.unpack(">HHHHHH", data[:12])
    if ident != QUERY_ID:
        raise ValueError(f"reply id {ident:#x} is not the query's {QUERY_ID:#x}")
    # The A records' addresses are the last four bytes of each answer whose
    # RDLENGTH is 4; names use compression, so scan for TYPE A, CLASS IN, len 4.
    addresses = []
    marker = struct.pack(">HH", TYPE_A, CLASS_IN)
    at = data.find(marker, 12 + 4)  # skip the question's own TYPE/CLASS
    while at != -1 and at + 14 <= len(data):
        rdlength = struct.unpack(">H", data[at + 8 : at + 10])[0]
        if rdlength == 4:
            addresses.append(".".join(str(b) for b in data[at + 10 : at + 14]))
        at = data.find(marker, at + 10)
    return Answer(rcode=flags & 0xF, answers=ancount, addresses=tuple(addresses))
