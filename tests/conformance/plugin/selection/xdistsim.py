"""A pytest-xdist run on paper: a scheduler, fake workers and recorded seconds.

A worker runs the first item of its queue once it holds a second one (it must
know the next item to tear down the right fixtures) or is shut down, as
`xdist.remote` does; an item holding the host-wide lock keeps its worker
waiting until the lock is free (first come, first served); when an item ends the scheduler hears of it
(`mark_test_complete`), as from a real worker. Ties end in worker order, so a
simulation is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any


@dataclass
class Worker:
    """What the scheduler sees of a worker (`xdist.workermanage.WorkerController`)."""

    name: str
    queue: list[int] = field(default_factory=list)
    shutting_down: bool = False
    ran: list[int] = field(default_factory=list)

    @property
    def gateway(self) -> Any:
        """Named in xdist's comparison of the workers' collections."""
        return type("Gateway", (), {"id": self.name})

    def send_runtest_some(self, indices: Sequence[int]) -> None:
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True

    def __hash__(self) -> int:
        return hash(self.name)


class Config:
    """The two options an xdist scheduler reads: the workers and --maxschedchunk."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def getvalue(self, name: str) -> Any:
        return {"tx": [f"{self.workers}*popen"], "dist": "load"}[name]

    def getoption(self, name: str) -> Any:
        assert name == "maxschedchunk"
        return None


class Quiet:
    """An xdist log (`Producer`) that keeps what the scheduler says to itself."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args: None


@dataclass(frozen=True)
class Simulated:
    """Which worker ran which items (indices into `seconds`), and the wall time."""

    ran: list[list[int]]
    wall: float


def simulate(
    make: Callable[[Any, Any], Any],
    seconds: Sequence[float],
    workers: int,
    *,
    locked: Collection[int] = (),
) -> Simulated:
    """Run items of `seconds` (in collection order) under the scheduler `make(config, log)`.

    `locked`: the indices of the items that take the one host-wide lock.
    """
    scheduler = make(Config(workers), Quiet())
    nodes = [Worker(f"gw{i}") for i in range(workers)]
    names = [f"item{i}" for i in range(len(seconds))]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, names)
    scheduler.schedule()
    ends: dict[int, float] = {}
    free = [0.0]
    """When the host-wide lock is free again."""

    def start(i: int, now: float) -> None:
        node = nodes[i]
        if node.queue and (len(node.queue) >= 2 or node.shutting_down):
            index = node.queue[0]
            if index in locked:
                now = free[0] = max(now, free[0]) + seconds[index]
                ends[i] = now
            else:
                ends[i] = now + seconds[index]

    for i in range(workers):
        start(i, 0.0)
    now = 0.0
    while ends:
        i = min(ends, key=lambda w: (ends[w], w))
        now = ends.pop(i)
        node = nodes[i]
        index = node.queue.pop(0)
        node.ran.append(index)
        scheduler.mark_test_complete(node, index, seconds[index])
        start(i, now)
        for j in range(workers):
            if j not in ends:
                start(j, now)
    assert sorted(i for node in nodes for i in node.ran) == list(range(len(seconds)))
    return Simulated(ran=[node.ran for node in nodes], wall=now)
