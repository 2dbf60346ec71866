"""We test these aspects of the reference suite's 4 shards, planned from the
shipped durations file (`conformance/durations.json`), without a cluster:

- only what must share a shard does: the layouts of a scenario the layout
  diff compares (it records `observations`) and the items of a host-wide lock;
  the layouts of any other scenario are independent units, as each item has its
  own namespace and its own dedicated controller instance;
- the 4 shards' planned sums of recorded seconds are within a few percent of
  each other;
- dealt to 4 xdist workers (`dealing.Dealer`), no shard is planned longer than
  3 min: the two layouts of RecoveryWithStatusFinalizer (2 x ~160 s) run side
  by side, not one after the other (issue 27 item 4: shard 1 took 305 s);
- the same inputs give the same plan.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from conformance.plugin.selection import arranging
from conformance.plugin.selection import dealing
from conformance.plugin.selection import listing
from conformance.plugin.state import keys
from conformance.plugin.state import scheduling
from tests.conformance.plugin.selection import xdistsim

SHARDS = 4
WORKERS = 4
PLANNED_WALL = 180.0
"""Seconds: the 3 min 30 s target less the run's own setup (about 30 s measured)."""


class Grab:
    """Keeps the suite's units and the fixtures of each item, as collected."""

    def __init__(self) -> None:
        self.units: dict[str, scheduling.Unit] = {}
        self.compared: dict[str, bool] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        suite = [i for i in session.items if keys.DECLARATION in i.stash]
        self.units = arranging.units_of(session.config, suite)
        self.compared = {
            arranging.key_of(i): "observations" in getattr(i, "fixturenames", ())
            for i in suite
        }


@pytest.fixture(scope="module")
def reference() -> Grab:
    grab = Grab()
    args = ["--wpc-implementation", "reference", "--wpc-layout", "both"]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(listing.pytest_args(args), plugins=[grab])
    assert code == pytest.ExitCode.OK
    assert len(grab.units) > 100
    return grab


def plan(units: dict[str, scheduling.Unit]) -> list[list[scheduling.Unit]]:
    return [
        scheduling.split(units, scheduling.Shard(i, SHARDS))[0]
        for i in range(1, SHARDS + 1)
    ]


def simulate(shard: list[scheduling.Unit]) -> xdistsim.Simulated:
    """The shard's run on WORKERS workers, the lock's items one after another."""
    return xdistsim.simulate(
        dealing.Dealer,
        [u.seconds for u in shard],
        WORKERS,
        locked={i for i, u in enumerate(shard) if any("lock:" in b for b in u.blocks)},
    )


def test_only_compared_scenarios_and_lock_groups_share_a_shard(reference: Grab) -> None:
    for block in scheduling.blocks(list(reference.units.values())):
        if len(block) == 1:
            continue
        locked = any(name.startswith("lock:") for u in block for name in u.blocks)
        scenarios = {
            name for u in block for name in u.blocks if name.startswith("scenario:")
        }
        assert locked or (
            len(scenarios) == 1 and all(reference.compared[u.key] for u in block)
        ), [u.key for u in block]
    independent = [key for key, compared in reference.compared.items() if not compared]
    assert independent
    assert all(not reference.units[key].blocks for key in independent)


def test_the_shipped_durations_give_four_shards_under_three_minutes(
    reference: Grab,
) -> None:
    shards = plan(reference.units)
    sums = [sum(u.seconds for u in shard) for shard in shards]
    walls = [simulate(shard).wall for shard in shards]
    print(
        f"planned shard sums {[round(s) for s in sums]}, walls {[round(w) for w in walls]}"
    )
    assert max(sums) - min(sums) <= 0.05 * max(sums)
    assert max(walls) <= PLANNED_WALL, walls
    long = [
        key for key in reference.units if key.startswith("RecoveryWithStatusFinalizer[")
    ]
    assert len(long) == 2
    shard = next(s for s in shards if long[0] in {u.key for u in s})
    ran = simulate(shard).ran
    position = {u.key: i for i, u in enumerate(shard)}
    workers = {
        w for w, items in enumerate(ran) for key in long if position[key] in items
    }
    assert len(workers) == 2
    assert plan(reference.units) == shards
