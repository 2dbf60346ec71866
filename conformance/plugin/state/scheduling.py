"""Longest first, and shards of equal length: the order and split of a selection.

Pure functions over `Unit`s (an item's key, its expected seconds, and the
block it must stay in); `conformance.plugin.selection.arranging` applies them to pytest
items.

Order: longest first, so that `--dist load` hands the long items out first;
equals keep their collection order. Both depend only on the code and the
durations file, so every pytest-xdist worker collects the same order (xdist
refuses workers whose collections differ). Items that must not overlap on a
cluster keep their host-wide lock (`conformance.harness.instances.locking`), as before:
the order does not serialise anything.

Shards (`--wpc-shard I/N`): greedy longest-processing-time packing. Blocks,
longest first, each go to the shard with the least work so far (the lowest
index among equals). A block is what must run in one shard: both layouts of a
scenario whose recordings the layout diff compares after the run, and every
item of a lock group (`conformance.plugin.selection.arranging` names them).
The same selection and durations give every runner the same split.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass

from conformance.errors import DataError

SHARD = re.compile(r"^(\d+)/(\d+)$")
FALLBACK_SECONDS = 30.0
"""Expected seconds of any item when the durations file knows none at all."""


@dataclass(frozen=True)
class Unit:
    """One item to schedule."""

    key: str
    """Its stable name (`conformance.report.items.itemkeys`), unique in the selection."""
    seconds: float
    blocks: tuple[str, ...] = ()
    """Names of what it must share a shard with (its scenario, a lock group)."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, *, flag: str = "--shard") -> Shard:
    """`I/N` with 1 <= I <= N; DataError naming `flag` and what is wrong otherwise."""
    match = SHARD.match(text.strip())
    if match is None:
        raise DataError(f"{flag} must look like I/N (e.g. 2/4), not {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise DataError(f"{flag} {text}: I must be between 1 and N, N at least 1")
    return Shard(index=index, count=count)


def expected(keys: Iterable[str], known: Mapping[str, float]) -> dict[str, float]:
    """Seconds per key: the durations file's, else the mean of the keys it knows."""
    wanted = list(keys)
    found = [known[k] for k in wanted if k in known]
    default = sum(found) / len(found) if found else FALLBACK_SECONDS
    return {key: known.get(key, default) for key in wanted}


def order(units: Iterable[Unit]) -> list[Unit]:
    """Longest first; equals keep the order they came in (collection order)."""
    return sorted(units, key=lambda u: -u.seconds)


def blocks(units: list[Unit]) -> list[list[Unit]]:
    """Units joined when they share a block name (transitively), in key order."""
    parent = list(range(len(units)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, unit in enumerate(units):
        for name in unit.blocks:
            if name in first:
                parent[root(i)] = root(first[name])
            else:
                first[name] = i
    joined: dict[int, list[Unit]] = {}
    for i, unit in enumerate(units):
        joined.setdefault(root(i), []).append(unit)
    return [sorted(block, key=lambda u: u.key) for block in joined.values()]


def assign(units: Iterable[Unit], count: int) -> dict[str, int]:
    """The 1-based shard of every unit's key: blocks whole, loads balanced (LPT)."""
    listed = list(units)
    keys = [u.key for u in listed]
    if len(set(keys)) != len(keys):
        raise DataError("two items of the selection have the same key")
    load = [0.0] * count
    found: dict[str, int] = {}
    for block in sorted(
        blocks(listed), key=lambda b: (-sum(u.seconds for u in b), b[0].key)
    ):
        target = min(range(count), key=lambda i: (load[i], i))
        load[target] += sum(u.seconds for u in block)
        for unit in block:
            found[unit.key] = target + 1
    return found


def split(
    units: Mapping[str, Unit], shard: Shard | None
) -> tuple[list[Unit], list[str]]:
    """(this shard's units in run order, the keys of the other shards' units).

    Without a shard, every unit, longest first. The one rule both the suite's
    items (`arranging`) and the negative controls (`tests/negative/sharding`) use.
    """
    dropped: list[str] = []
    if shard is not None:
        assigned = assign(units.values(), shard.count)
        dropped = [key for key in units if assigned[key] != shard.index]
    left_out = set(dropped)
    kept = [unit for key, unit in units.items() if key not in left_out]
    return order(kept), dropped


def selection_digest(keys: Iterable[str]) -> str:
    """A short fingerprint of the whole selection, the same in every shard."""
    text = "\n".join(sorted(keys))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]
