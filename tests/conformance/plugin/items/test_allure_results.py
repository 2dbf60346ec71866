"""We test these aspects of the Allure results a run writes (#26 item 7), reading
the result files of a pytester run against the fake cluster:

- the title is the ShortName and its clauses; epic Core or Extended, feature
  the clauses' spec areas, story the ShortName;
- the severity comes from the strongest clause: MUST critical, SHOULD normal,
  MAY minor;
- each clause links to its heading in SPEC.md (a file URI of the SPEC.md that
  ran, or the anchor filled into a `--allure-link-pattern clause:...` pattern);
- the layout is one visible parameter (pytest's own is hidden and left out of
  the history ID);
- the harness's phases are the steps, in the order they ran, the failing one
  marked failed; a block timed inside another is no step of its own;
- a test whose setup fails still gets its title.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance import spec
from conformance.plugin.items import attaching
from tests.conformance.conftest import wpc_args

PHASED = """
import pytest
from conformance.harness.cluster import timing

@pytest.mark.conformance(short_name="Phased", clauses=["WPC-POD-001", "WPC-FINALIZER-001"])
def test_phased(wpc_layout):
    with timing.timed(timing.INSTALL):
        pass
    with timing.timed(timing.SUBMIT):
        pass
    with timing.timed(timing.WAIT):
        with timing.timed(timing.OBSERVE):
            pass
    with timing.timed(timing.OBSERVE):
        assert wpc_layout == "legacy", "the initless pod looked wrong"
"""

RECOVERED = """
import pytest

@pytest.mark.conformance(short_name="Recovered", clauses=["WPC-RECOVERY-001"], features=["RETRY"])
def test_recovered():
    pass
"""

BROKEN = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("no namespace")

@pytest.mark.conformance(short_name="Broken", clauses=["WPC-POD-002"])
def test_broken(broken):
    pass
"""


CLAIMED = "LEGACY_LAYOUT,INITLESS_LAYOUT,STATUS_FINALIZER,RETRY"


def _results(folder: Path) -> dict[str, dict[str, Any]]:
    """Each result file's content by its test's title and layout."""
    found = {}
    for path in folder.glob("*-result.json"):
        result = json.loads(path.read_text())
        layout = next(p["value"] for p in result["parameters"] if p["name"] == "layout")
        layout = layout.strip("'")  # allure-pytest writes a value's repr
        found[f"{result['name']}|{layout}"] = result
    return found


def _labels(result: dict[str, Any], name: str) -> list[str]:
    return [label["value"] for label in result["labels"] if label["name"] == name]


@pytest.fixture
def results(suite: pytest.Pytester) -> dict[str, dict[str, Any]]:
    suite.makepyfile(test_phased=PHASED, test_recovered=RECOVERED, test_broken=BROKEN)
    folder = suite.path / "allure"
    outcome = suite.runpytest(
        *wpc_args("--alluredir", str(folder), "--wpc-features", CLAIMED)
    )
    outcome.assert_outcomes(passed=3, failed=1, errors=2)
    return _results(folder)


def test_title_epic_feature_story_and_severity(results):
    phased = results["Phased (WPC-POD-001, WPC-FINALIZER-001)|legacy"]
    assert _labels(phased, "epic") == ["Extended"]  # STATUS_FINALIZER's clause
    assert _labels(phased, "feature") == ["FINALIZER", "POD"]
    assert _labels(phased, "story") == ["Phased"]
    assert _labels(phased, "severity") == ["critical"]  # MUST beats SHOULD
    recovered = results["Recovered (WPC-RECOVERY-001)|initless"]
    assert _labels(recovered, "epic") == ["Extended"]
    assert _labels(recovered, "severity") == ["minor"]  # MAY
    assert _labels(recovered, "feature") == ["RECOVERY"]


def test_each_clause_links_to_its_heading_in_spec_md(results):
    phased = results["Phased (WPC-POD-001, WPC-FINALIZER-001)|legacy"]
    anchors = {h.id: h.anchor for h in spec.parse_markdown(spec.SPEC_PATH.read_text())}
    assert [(link["name"], link["type"], link["url"]) for link in phased["links"]] == [
        (
            clause,
            "clause",
            f"{spec.SPEC_PATH.resolve().as_uri()}#{anchors[clause]}",
        )
        for clause in ("WPC-POD-001", "WPC-FINALIZER-001")
    ]
    assert anchors["WPC-POD-001"] == (
        "wpc-pod-001--must--layouts-legacy-initless--feature-pod_contract--profile-pod"
    )


def test_the_layout_is_one_visible_parameter(results):
    for result in results.values():
        shown = [p for p in result["parameters"] if p.get("mode") != "hidden"]
        assert [p["name"] for p in shown] == ["layout"]


def test_the_phases_are_the_steps_in_order_and_the_failing_one_is_marked(results):
    passed = results["Phased (WPC-POD-001, WPC-FINALIZER-001)|legacy"]
    steps = [(s["name"], s["status"]) for s in passed["steps"]]
    assert steps == [
        ("prepare: install a controller", "passed"),
        ("submit", "passed"),
        ("wait", "passed"),  # the observe inside it is the wait's time, no step
        ("observe", "passed"),
    ]
    failed = results["Phased (WPC-POD-001, WPC-FINALIZER-001)|initless"]
    assert failed["status"] == "failed"
    assert failed["steps"][-1]["name"] == "observe"
    assert failed["steps"][-1]["status"] == "failed"
    assert (
        "the initless pod looked wrong"
        in failed["steps"][-1]["statusDetails"]["message"]
    )


def test_a_test_whose_setup_fails_still_has_its_title(results):
    broken = results["Broken (WPC-POD-002)|legacy"]
    assert broken["status"] == "broken"
    assert _labels(broken, "epic") == ["Core"]
    assert _labels(broken, "severity") == ["critical"]


@pytest.mark.parametrize(
    ("levels", "severity"),
    [
        (["MUST"], "critical"),
        (["SHOULD"], "normal"),
        (["MAY"], "minor"),
        (["MAY", "SHOULD"], "normal"),
        ([], "normal"),
    ],
)
def test_the_strongest_level_is_the_severity(levels, severity):
    assert attaching.severity(levels).value == severity


def test_a_link_pattern_points_clauses_at_a_published_spec(suite: pytest.Pytester):
    suite.makepyfile(test_recovered=RECOVERED)
    folder = suite.path / "allure"
    suite.runpytest(
        *wpc_args(
            "--alluredir",
            str(folder),
            "--allure-link-pattern",
            "clause:https://example.test/SPEC.md#{}",
            "--wpc-features",
            CLAIMED,
            "-k",
            "recovered",
        )
    )
    (recovered, *_) = _results(folder).values()
    assert recovered["links"][0]["url"] == (
        "https://example.test/SPEC.md#" + attaching.anchors()["WPC-RECOVERY-001"]
    )
