"""We test these aspects of the negative controls' order and shards:

- the faults' items run longest first by `tests/negative/durations.json` (a fault
  it does not know counts as the mean of those it knows); other items stay first,
  as they were;
- `--wpc-shard I/N` keeps a duration-balanced part, the same packing as the
  conformance runs' (`conformance.plugin.state.scheduling.assign`): the N shards
  together are the whole selection, each item in exactly one; a fault's items
  share a shard;
- a malformed shard is a usage error naming the flag;
- `--wpc-update-durations` folds a session's measured faults into the file;
- the shipped file names only faults of the table.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.plugin.state import scheduling
from conformance.report.runs import durations
from tests.negative import controls
from tests.negative import sharding


def _item(nodeid: str, fault: str | None, *, negative: bool = True):
    params = {} if fault is None else {"control": SimpleNamespace(fault=fault)}
    return SimpleNamespace(
        nodeid=nodeid,
        callspec=SimpleNamespace(params=params),
        get_closest_marker=lambda name: (
            object() if negative and name == "negative" else None
        ),
    )


KNOWN = {"slow": 160.0, "mid": 80.0, "quick": 30.0, "tiny": 10.0}


def _items():
    return [
        _item("unit", None),
        _item("t[tiny]", "tiny"),
        _item("t[quick]", "quick"),
        _item("t[new]", "new"),
        _item("t[slow]", "slow"),
        _item("chaos[mid-a]", "mid"),
        _item("chaos[mid-b]", "mid"),
        _item("plain", "slow", negative=False),
    ]


def test_faults_run_longest_first_and_other_items_first_as_they_were():
    kept, dropped = sharding.arrange(_items(), known=KNOWN, shard=None)
    assert dropped == []
    # "new" is unknown: the mean of the known (70 s); equals keep their order.
    assert [i.nodeid for i in kept] == [
        "unit",
        "plain",
        "t[slow]",
        "chaos[mid-a]",
        "chaos[mid-b]",
        "t[new]",
        "t[quick]",
        "t[tiny]",
    ]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_shards_together_are_the_selection_and_a_fault_stays_whole(count):
    seen: dict[str, int] = {}
    for index in range(1, count + 1):
        kept, dropped = sharding.arrange(
            _items(), known=KNOWN, shard=scheduling.Shard(index, count)
        )
        faulty = [i.nodeid for i in kept if sharding.fault_of(i)]
        for nodeid in faulty:
            assert nodeid not in seen, f"{nodeid} in two shards"
            seen[nodeid] = index
        assert {i.nodeid for i in kept} | {i.nodeid for i in dropped} == {
            i.nodeid for i in _items()
        }
    assert len(seen) == 6
    assert seen["chaos[mid-a]"] == seen["chaos[mid-b]"]


def test_two_shards_are_balanced_by_duration():
    known = {**KNOWN, "slow": 200.0}
    shards = [
        [
            i.nodeid
            for i in sharding.arrange(
                _items(), known=known, shard=scheduling.Shard(n, 2)
            )[0]
            if sharding.fault_of(i)
        ]
        for n in (1, 2)
    ]
    # Blocks longest first to the lighter shard: slow 200 | mid 2 x 80; new (the
    # mean, 80) -> 2; quick 30 -> 1; tiny 10 -> 1: 240 s each. Equals keep
    # their collection order.
    assert shards == [
        ["t[slow]", "t[quick]", "t[tiny]"],
        ["t[new]", "chaos[mid-a]", "chaos[mid-b]"],
    ]


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b"])
def test_a_malformed_shard_is_a_usage_error_naming_the_flag(text):
    config = SimpleNamespace(getoption=lambda name, default=None: text)
    with pytest.raises(pytest.UsageError, match="--wpc-shard"):
        sharding.shard_of(config)


def test_no_shard_option_is_no_shard():
    config = SimpleNamespace(getoption=lambda name, default=None: None)
    assert sharding.shard_of(config) is None


def test_a_session_folds_its_measured_faults_into_the_file(tmp_path):
    path = tmp_path / "durations.json"
    durations.write(path, {"slow": 160.0, "kept": 5.0}, source="before")
    sharding.refresh(
        {
            "faults": [
                {"fault": "slow", "durationSeconds": 120.5},
                {"fault": "pending", "durationSeconds": 0.0},
            ]
        },
        path,
    )
    assert durations.load(path) == {"slow": 120.5, "kept": 5.0}


def test_the_shipped_durations_name_faults_of_the_table():
    known = sharding.load_known()
    assert known, "tests/negative/durations.json is empty"
    assert set(known) <= {row.fault for row in controls.load()}
