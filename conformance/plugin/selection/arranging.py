"""The selection's order and shard, applied to the collected items.

After collection and every deselection (`conformance.plugin.selection.collection`, `-k`,
`-m`) every process that collects (each pytest-xdist worker, or the only
process) keeps the items of its shard (`--wpc-shard I/N`) and puts them longest first, by the durations
file; both are decided by `conformance.plugin.state.scheduling`, from the same
inputs in every process, so every worker collects the same list. Items the
run skips as not claimed take no time. The layouts of a scenario that records
observations stay in one shard (its layout diff compares them at the end of the
shard's run); the layouts of any other scenario are independent items, each with
its own namespace and, where it needs one, its own controller instance, so they
may land in different shards. The items that take one of the host-wide locks
(`SERIAL_FIXTURES`) stay in one shard as well: the lock serialises them on one
host, the shard on a cluster that shards on different hosts share. Within a
process, `dealing` hands the ordered items to the xdist workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.harness.instances import locking
from conformance.plugin.selection import dealing
from conformance.plugin.state import keys
from conformance.plugin.state import runs
from conformance.plugin.state import scheduling
from conformance.report.items.itemkeys import item_key
from conformance.report.items.records import scenario_of
from conformance.report.runs import durations

SELECTION_OUTPUT = "wpc_selection"
"""The `workeroutput` key carrying a worker's selection fingerprint to the controller."""
SERIAL_FIXTURES = {"unlabelled_workflows_lock": locking.UNLABELLED_WORKFLOWS}
"""Fixtures holding a host-wide lock: the items asking for one form one block."""
COMPARED_FIXTURE = "observations"
"""The fixture whose recordings the layout diff compares (`reporting.writing`)."""


def load_durations(path: Path) -> dict[str, float]:
    """The durations file; none at the default place is no error (nothing known)."""
    if path == durations.DEFAULT_PATH and not path.exists():
        return {}
    return durations.load(path)


def unit_of(item: pytest.Item, seconds: float) -> scheduling.Unit:
    """The schedulable unit of a suite item (its blocks: compared scenario, lock groups)."""
    layout = item.stash[keys.LAYOUT]
    fixtures = getattr(item, "fixturenames", ())
    compared = COMPARED_FIXTURE in fixtures
    return scheduling.Unit(
        key=key_of(item),
        seconds=0.0 if item.get_closest_marker("skip") is not None else seconds,
        blocks=(
            *([f"scenario:{scenario_of(item.nodeid, layout)}"] if compared else []),
            *(
                f"lock:{lock}"
                for name, lock in SERIAL_FIXTURES.items()
                if name in fixtures
            ),
        ),
    )


def units_of(
    config: pytest.Config, items: list[pytest.Item]
) -> dict[str, scheduling.Unit]:
    """The suite items among `items` as units, by key, in their order."""
    run = runs.of(config)
    suite = [item for item in items if keys.DECLARATION in item.stash]
    expected = scheduling.expected((key_of(i) for i in suite), run.durations)
    return {key_of(i): unit_of(i, expected[key_of(i)]) for i in suite}


def key_of(item: pytest.Item) -> str:
    """The item's stable key (`conformance.report.items.itemkeys`)."""
    return item_key(
        short_name=item.stash[keys.DECLARATION].short_name,
        nodeid=item.nodeid,
        layout=item.stash[keys.LAYOUT],
    )


def arrange(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep this shard's suite items, longest first; other items follow, as they were."""
    run = runs.of(config)
    suite = [item for item in items if keys.DECLARATION in item.stash]
    others = [item for item in items if keys.DECLARATION not in item.stash]
    units = units_of(config, suite)
    run.selection = scheduling.selection_digest(units)
    kept, dropped = scheduling.split(units, run.settings.shard)
    by_key = {key_of(i): i for i in suite}
    if dropped:
        config.hook.pytest_deselected(items=[by_key[key] for key in dropped])
    items[:] = [by_key[unit.key] for unit in kept] + others


class Arranger:
    """Orders and shards the items after every other deselection (`-k`, `-m`, layouts).

    A plugin object of its own so that its hook can run last: the shard is a part
    of what the unsharded run with the same options would run.
    """

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Keep this shard's items, longest first; a worker tells the controller the selection."""
        arrange(config, items)
        if hasattr(config, "workerinput"):
            config.workeroutput[SELECTION_OUTPUT] = runs.of(config).selection  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(
        self, config: pytest.Config, log: object
    ) -> dealing.Dealer | None:
        """In the xdist controller: deal the ordered items one per worker (`dealing`)."""
        return dealing.scheduler(config, log)
