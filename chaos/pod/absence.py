"""Judge reads of a status marker that must never appear (WPC-HANDSHAKE-007).

A probe reads the marker from `main` while `main` waits, each read stamped
with the node's clock (`date +%s` in the container), so the reads compare
with the kubelet's `finishedAt` without any skew between this machine and the
node. Proving the marker was absent *when main gave up* needs a read close to
that moment; a gap larger than the slack is too little evidence, not a fault
of the system under test. Pure functions: the probe does the I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from chaos.errors import Final
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from conformance import contract

ABSENT = "absent"
PRESENT = "present"
TMP_IS_DIRECTORY = "tmp-dir"
TMP_OTHER = "tmp-other"

SCRIPT = (
    "now=$(date +%s); "
    f"if [ -d {contract.STATUS_MARKER_TMP} ]; then t={TMP_IS_DIRECTORY}; "
    f"else t={TMP_OTHER}; fi; "
    f'if [ -e {contract.STATUS_MARKER} ]; then echo "{PRESENT} $now $t"; '
    f"head -c 200 {contract.STATUS_MARKER}; "
    f'else echo "{ABSENT} $now $t"; fi'
)
"""One read, from a container that mounts /var/run/argo: `<absent|present>
<node epoch seconds> <tmp-dir|tmp-other>`, then the marker's content if present."""


@dataclass(frozen=True)
class Read:
    """One read of the marker: was it there, when (node clock), what was at its tmp path."""

    present: bool
    at: int
    tmp_is_directory: bool
    content: str = ""


def parse(output: str) -> Read | None:
    """The read `SCRIPT` printed; None for anything else (an exec cut short)."""
    head, _, rest = output.partition("\n")
    words = head.split()
    if len(words) != 3 or words[0] not in (ABSENT, PRESENT) or not words[1].isdigit():
        return None
    return Read(
        present=words[0] == PRESENT,
        at=int(words[1]),
        tmp_is_directory=words[2] == TMP_IS_DIRECTORY,
        content=rest,
    )


def refuse_present(read: Read, pod: str) -> None:
    """Final when the marker exists: the fault did not keep it from appearing."""
    if read.present:
        raise Final(
            f"{pod}: the status marker {contract.STATUS_MARKER} appeared at "
            f"{read.at} (node clock): {read.content!r}"
        )


def judge(
    reads: list[Read],
    *,
    pod: str,
    started: int,
    finished: int,
    limit: float,
    slack: float,
) -> str:
    """Evidence that the marker stayed absent until main gave up; raise otherwise.

    `started`/`finished`: main's container times (epoch seconds, whole: the
    kubelet's resolution); `limit`: the 30 s rule, which main must not beat
    (one second allowed for the timestamps' rounding); `slack`: how long before
    `finished` the last read may be and still show the marker was absent then.
    """
    if not reads:
        raise Inconclusive(
            f"{pod}: main ended (finished {finished}) before any read of the marker"
        )
    for read in reads:
        refuse_present(read, pod)
    last = reads[-1]
    if finished - last.at > slack:
        raise Inconclusive(
            f"{pod}: the last read of the marker ({last.at}) was "
            f"{finished - last.at} s before main finished ({finished}); more than "
            f"{slack:g} s, so it does not show the marker absent when main gave up"
        )
    waited = finished - started
    if waited < limit - 1:
        raise Unexpected(
            f"{pod}: main gave up {waited} s after it started (started {started}, "
            f"finished {finished}): earlier than the {limit:g} s rule allows "
            "(WPC-HANDSHAKE-007)"
        )
    blocked = sum(1 for r in reads if r.tmp_is_directory)
    return (
        f"{pod}: {contract.STATUS_MARKER} absent in all {len(reads)} reads from main, "
        f"{reads[0].at}..{last.at} (node clock); main started {started}, gave up "
        f"{finished} ({waited} s), {finished - last.at} s after the last read; "
        f"{contract.STATUS_MARKER_TMP} a directory in {blocked} of them"
    )
