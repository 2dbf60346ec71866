"""We test these aspects of how the ordered items reach the xdist workers:

- xdist's own `--dist load` hands the first items out two (or more) at a time,
  so the two longest items of a selection run one after the other on one
  worker; `Dealer` gives each worker one of the longest first, queues the
  shortest behind them, then one item per finished item, longest first;
- every item runs once, and the same durations give the same dealing;
- the plugin puts `Dealer` in for `--dist load` (what `-n` means) and leaves
  other `--dist` modes to xdist; in a real `-n 2` run the two layouts of the
  longest scenario start on the two workers.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScheduling

from conformance.plugin.selection import arranging
from conformance.plugin.selection import dealing
from conformance.report.runs import durations
from tests.conformance.conftest import wpc_args
from tests.conformance.plugin.selection import xdistsim

# The shape of shard 1 of the reference (2026-11-28): both layouts of a 150 s
# scenario, then shorter items, longest first, the not-claimed ones last.
SECONDS = [163.0, 155.0, 20.0, 20.0, 12.0, 11.0, 11.0, 9.0, 9.0, 8.0]
SECONDS += [8.0, 7.0, 7.0, 6.5, 6.0, 5.0, 5.0, 3.6, 3.0, 0.0]


def worker_of(simulated: xdistsim.Simulated, index: int) -> int:
    return next(w for w, ran in enumerate(simulated.ran) if index in ran)


def test_xdist_load_runs_the_two_longest_items_on_one_worker() -> None:
    simulated = xdistsim.simulate(LoadScheduling, SECONDS, 4)
    assert worker_of(simulated, 0) == worker_of(simulated, 1)
    assert simulated.wall >= SECONDS[0] + SECONDS[1]


def test_dealer_runs_the_longest_items_on_different_workers_first() -> None:
    simulated = xdistsim.simulate(dealing.Dealer, SECONDS, 4)
    assert [ran[0] for ran in simulated.ran] == [0, 1, 2, 3]
    # Behind the long ones, the shortest: they cost the long workers nothing.
    assert [ran[1] for ran in simulated.ran[:2]] == [19, 18]
    assert simulated.wall <= SECONDS[0] + SECONDS[-2] + SECONDS[-1]
    assert xdistsim.simulate(dealing.Dealer, SECONDS, 4) == simulated


@pytest.mark.parametrize("count", [1, 3, 7, 8, 9])
def test_dealer_runs_every_item_once_however_few(count: int) -> None:
    simulated = xdistsim.simulate(dealing.Dealer, SECONDS[:count], 4)
    assert sorted(i for ran in simulated.ran for i in ran) == list(range(count))


class Options:
    def __init__(self, dist: str) -> None:
        self.dist = dist

    def getvalue(self, name: str) -> Any:
        return {"tx": ["2*popen"], "dist": self.dist}[name]

    def getoption(self, name: str) -> Any:
        return None


def test_the_plugin_deals_a_load_run_and_leaves_other_modes_to_xdist() -> None:
    arranger = arranging.Arranger()
    made = arranger.pytest_xdist_make_scheduler(Options("load"), None)  # type: ignore[arg-type]
    assert isinstance(made, dealing.Dealer)
    assert made.maxschedchunk == 1
    assert arranger.pytest_xdist_make_scheduler(Options("loadscope"), None) is None  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_real_xdist_run_starts_the_two_longest_items_on_two_workers(
    suite: pytest.Pytester,
) -> None:
    for name in ("long", "short"):
        suite.makepyfile(
            **{
                f"test_{name}": f"""
                import pytest

                @pytest.mark.conformance(short_name="{name.title()}", clauses=["WPC-POD-001"])
                def test_{name}():
                    pass
                """
            }
        )
    seconds = suite.path / "durations.json"
    durations.write(
        seconds,
        {
            f"{name}[{layout}]::test_{name.lower()}": value
            for name, value in (("Long", 100.0), ("Short", 1.0))
            for layout in ("legacy", "initless")
        },
        source="test",
    )
    args = wpc_args("-n", "2", "-v", "--wpc-durations-file", str(seconds))
    result = suite.runpytest_subprocess(*args)
    assert result.ret == 0, result.stdout.str()
    workers = {
        line.split()[0]
        for line in result.outlines
        if "PASSED" in line and "::test_long[" in line
    }
    assert workers == {"[gw0]", "[gw1]"}, result.stdout.str()


def test_the_simulation_runs_the_locks_items_one_after_another() -> None:
    free = xdistsim.simulate(dealing.Dealer, [10.0, 10.0, 1.0, 1.0], 2)
    locked = xdistsim.simulate(dealing.Dealer, [10.0, 10.0, 1.0, 1.0], 2, locked={0, 1})
    assert (free.wall, locked.wall) == (11.0, 21.0)
