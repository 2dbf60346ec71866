"""We test these aspects of `wpc.diff.layouts` (the pure half of layout-diff):

- an observation both reports see differ, with other values per layout, is
  "both, not the same way";
- outcome splits in both reports are the same split only when each layout has
  the same outcome in both;
- a difference in one report, for a scenario the other did not run in both
  layouts, says so instead of "no difference";
- scenarios are matched by the test id without its layout, so two tests that
  share a short name stay apart;
- an observation or a test listed twice is a DataError naming the file and key.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.errors import DataError
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc.diff import layouts

SCENARIO = "conformance/tests/test_hello.py::test_hello"
"""The layout-free node ID of `entry("Hello", layout)`, as old reports name it."""
KEY = "Hello::test_hello"
"""Its identity without the layout (no such file in the suite: the function is kept)."""


def _diverging(
    document: dict[str, Any], key: str, legacy: str, initless: str
) -> dict[str, Any]:
    document["layoutDivergences"]["declared"].append(
        {
            "scenario": SCENARIO,
            "shortName": "Hello",
            "key": key,
            "values": {"legacy": legacy, "initless": initless},
            "divergence": "some-divergence",
        }
    )
    return document


def _both(outcome_a: tuple[str, str], outcome_b: tuple[str, str]) -> layouts.LayoutDiff:
    a = report(
        [
            entry("Hello", "legacy", outcome_a[0]),
            entry("Hello", "initless", outcome_a[1]),
        ]
    )
    b = report(
        [
            entry("Hello", "legacy", outcome_b[0]),
            entry("Hello", "initless", outcome_b[1]),
        ]
    )
    return layouts.compare(layouts.side(a, "a.yaml"), layouts.side(b, "b.yaml"))


def test_the_same_key_with_other_values_differs_not_the_same_way():
    tests = [entry("Hello", "legacy"), entry("Hello", "initless")]
    a = _diverging(report(tests), "pods.main.auxContainer", "wait", "supervisor")
    b = _diverging(report(tests), "pods.main.auxContainer", "wait", "emissary")
    diff = layouts.compare(layouts.side(a, "a.yaml"), layouts.side(b, "b.yaml"))
    [row] = diff.observations
    assert (row.differs_in, row.same_way, row.short_name) == ("both", False, "Hello")
    same = layouts.compare(layouts.side(a, "a.yaml"), layouts.side(a, "b.yaml"))
    assert [r.same_way for r in same.observations] == [True]


def test_splits_in_both_are_the_same_split_only_with_the_same_outcomes():
    [same] = _both(("passed", "failed"), ("passed", "failed")).outcomes
    assert (same.split_in, same.same_split) == ("both", True)
    [other] = _both(("passed", "failed"), ("failed", "passed")).outcomes
    assert (other.split_in, other.same_split) == ("both", False)
    assert _both(("failed", "failed"), ("passed", "passed")).outcomes == []


def test_a_scenario_the_other_did_not_run_in_both_layouts_is_not_no_difference():
    a = _diverging(
        report([entry("Hello", "legacy"), entry("Hello", "initless")]),
        "workflow.phase",
        "Succeeded",
        "Failed",
    )
    b = report([entry("Hello", "legacy"), entry("Hello", "initless", "skipped")])
    diff = layouts.compare(layouts.side(a, "a.yaml"), layouts.side(b, "b.yaml"))
    [row] = diff.observations
    assert (row.differs_in, row.a_ran_both, row.b_ran_both) == ("a", True, False)
    [split] = diff.outcomes
    assert (split.split_in, split.b) == (
        "b",
        {"legacy": "passed", "initless": "skipped"},
    )


def test_tests_sharing_a_short_name_stay_apart():
    other = entry("Hello", "initless", "failed")
    other["nodeid"] = "conformance/tests/test_hello.py::test_hello_again[initless]"
    again = entry("Hello", "legacy")
    again["nodeid"] = "conformance/tests/test_hello.py::test_hello_again[legacy]"
    a = report([entry("Hello", "legacy"), entry("Hello", "initless"), again, other])
    side = layouts.side(a, "a.yaml")
    assert side.outcomes == {
        KEY: {"legacy": "passed", "initless": "passed"},
        f"{KEY}_again": {"legacy": "passed", "initless": "failed"},
    }
    diff = layouts.compare(side, layouts.side(report([]), "b.yaml"))
    assert [(r.scenario, r.split_in) for r in diff.outcomes] == [(f"{KEY}_again", "a")]


def test_an_observation_listed_twice_names_the_file_and_key():
    tests = [entry("Hello", "legacy"), entry("Hello", "initless")]
    twice = _diverging(_diverging(report(tests), "k", "x", "y"), "k", "x", "z")
    with pytest.raises(
        DataError, match=r"a\.yaml: key layoutDivergences\.declared\[1\]"
    ):
        layouts.side(twice, "a.yaml")


def test_a_test_listed_twice_names_the_file_and_key():
    doubled = report([entry("Hello", "legacy"), entry("Hello", "legacy", "failed")])
    with pytest.raises(DataError, match=r"a\.yaml: key tests\[1\]: a second test"):
        layouts.side(doubled, "a.yaml")
