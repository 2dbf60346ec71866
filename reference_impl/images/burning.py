"""CPU load for benchmarks: busy processes, bounded in time, that never outlive their user.

`busy(processes=4, limit=600)` starts that many `python -c` loops that spin
until `limit` seconds have passed (so a killed benchmark cannot leave them
running for long) and stops them when the block ends. Loading a 2-core node
to "2x its cores" is `busy(processes=4)` on top of whatever already runs.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

_SPIN = (
    "import time\n"
    "end = time.monotonic() + {limit}\n"
    "while time.monotonic() < end:\n"
    "    pass\n"
)


@contextlib.contextmanager
def busy(*, processes: int, limit: float = 600.0) -> Iterator[None]:
    """Keep `processes` CPU-bound processes running for the duration of the block."""
    code = _SPIN.format(limit=float(limit))
    spinners = [
        subprocess.Popen([sys.executable, "-c", code]) for _ in range(processes)
    ]
    try:
        yield
    finally:
        for proc in spinners:
            proc.kill()
        for proc in spinners:
            proc.wait()
