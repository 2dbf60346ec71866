"""Checks run inside a node container: a DNS question to CoreDNS, in plain bash.

The node image carries no DNS client, and the host cannot reach Service
addresses, so `up` asks CoreDNS through the kube-dns Service from inside the
control-plane node: bash copies a query made here (on its stdin) to
`/dev/udp/<ip>/53` and `od` prints the reply's bytes, which are parsed here.
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


def command(server: str, *, port: int = 53, timeout: int = 2) -> list[str]:
    """The bash command that sends its stdin to `server`:`port` and prints the reply in hex.

    The query goes in on stdin (`docker exec -i`), not through `printf`: an
    escaped packet in a printf format did not arrive intact. The reply is read
    with one `dd` read, which is one datagram; `head -c` waits for more than a
    datagram holds and its buffered output died with it when `timeout` struck.
    """
    script = (
        f"exec 3<>/dev/udp/{server}/{port} && cat >&3 && "
        f"timeout {timeout} dd bs=512 count=1 status=none <&3 | od -An -v -tx1"
    )
    return ["bash", "-c", script]


def stdin_text(packet: bytes) -> str:
    """The packet as the text `plumbing.commands.attempt` writes: DNS queries are ASCII."""
    if any(b > 0x7F for b in packet):
        raise ValueError("a query with bytes above 0x7f cannot pass as text on stdin")
    return packet.decode("ascii")


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
    at = _skip_name(data, 12) + 4  # the question: name, TYPE, CLASS
    addresses = []
    for _ in range(ancount):
        at = _skip_name(data, at)
        if at + 10 > len(data):
            raise ValueError("the reply ends inside an answer")
        rtype, rclass, _ttl, rdlength = struct.unpack(">HHIH", data[at : at + 10])
        at += 10
        if (rtype, rclass, rdlength) == (TYPE_A, CLASS_IN, 4):
            addresses.append(".".join(str(b) for b in data[at : at + 4]))
        at += rdlength
    return Answer(rcode=flags & 0xF, answers=ancount, addresses=tuple(addresses))


def _skip_name(data: bytes, at: int) -> int:
    """Offset just past the (possibly compressed) name starting at `at`."""
    while at < len(data):
        length = data[at]
        if length & 0xC0 == 0xC0:  # a pointer ends the name
            return at + 2
        if length == 0:
            return at + 1
        at += 1 + length
    raise ValueError("the reply ends inside a name")
