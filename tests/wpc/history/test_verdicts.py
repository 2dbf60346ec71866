"""We test how one fix is judged from the reports of its two tags (pure):

- the scenario's items are read by exact test id, per layout: a bystander that
  failed does not count, an absent layout is `absent`, a skipped one carries
  its skip reason, a failed one the first `E` line of its message;
- caught: failed before in a layout where it passed after (a layout where it
  was not claimed is left out); missed: passed before wherever it ran;
  broken-after: failed after, even when it also failed before;
- not-run: a side without a report (with the run's error), a harness error,
  a side where it ran in no layout, or a failure before only in layouts that
  did not run after.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.wpc.history.builders import SIGTERM
from tests.wpc.history.builders import scenario_report
from wpc.history import plans
from wpc.history import verdicts
from wpc.history.verdicts import LayoutOutcome
from wpc.history.verdicts import SideResult

BOTH = ("legacy", "initless")
FAILURE = (
    "[gw0] linux -- Python 3.11\nfixture = ...\n"
    "E   AssertionError: gone 31.2 s after a graceful deletion, exit 137\nmore\n"
)


def side(side_: str, tag: str, **layouts: str) -> SideResult:
    return SideResult(
        side=side_,
        needed=tag,
        tag=tag,
        report=f"reports/history/{tag}/conformance.yaml",
        error=None,
        layouts={
            name: LayoutOutcome(
                outcome, f"{outcome} in {name}" if outcome != "passed" else ""
            )
            for name, outcome in layouts.items()
        },
    )


def test_the_scenarios_items_are_read_by_exact_id(tmp_path: Path):
    path = scenario_report(
        tmp_path / "r.yaml", SIGTERM, {"legacy": "failed"}, message=FAILURE
    )
    document = yaml.safe_load(path.read_text())
    found = verdicts.layout_outcomes(document, SIGTERM, BOTH)
    assert found["legacy"] == LayoutOutcome(
        "failed", "AssertionError: gone 31.2 s after a graceful deletion, exit 137"
    )
    assert found["initless"].outcome == verdicts.ABSENT


def test_a_skipped_layout_carries_its_reason(tmp_path: Path):
    path = scenario_report(
        tmp_path / "r.yaml",
        SIGTERM,
        {"legacy": "skipped", "initless": "passed"},
        message="not claimed: INITLESS_LAYOUT only",
    )
    found = verdicts.layout_outcomes(yaml.safe_load(path.read_text()), SIGTERM, BOTH)
    assert found == {
        "legacy": LayoutOutcome("skipped", "not claimed: INITLESS_LAYOUT only"),
        "initless": LayoutOutcome("passed", ""),
    }


def test_failed_before_and_passed_after_is_caught():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy="failed", initless="failed"),
        side(plans.AFTER, "v4.1.2", legacy="passed", initless="passed"),
    )
    assert judged.verdict == plans.CAUGHT
    assert "legacy, initless" in judged.reason
    assert judged.evidence == "failed in legacy"


def test_a_layout_where_it_is_not_claimed_is_left_out():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.1", legacy="skipped", initless="failed"),
        side(plans.AFTER, "v4.1.2", legacy="skipped", initless="passed"),
    )
    assert judged.verdict == plans.CAUGHT
    assert judged.reason.endswith("in initless")


def test_passed_before_is_missed():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy="passed", initless="skipped"),
        side(plans.AFTER, "v4.1.2", legacy="passed", initless="skipped"),
    )
    assert judged.verdict == plans.MISSED
    assert judged.reason == "passed on v4.1.0, which has the bug, in legacy"


@pytest.mark.parametrize("before", ["passed", "failed"])
def test_failed_after_is_broken_after(before: str):
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy=before, initless="passed"),
        side(plans.AFTER, "v4.1.2", legacy="passed", initless="failed"),
    )
    assert judged.verdict == plans.BROKEN_AFTER
    assert judged.evidence == "failed in initless"


def test_a_side_without_a_report_is_not_run():
    missing = SideResult(
        side=plans.AFTER,
        needed="v4.1.1",
        tag="v4.1.1",
        report=None,
        error="exit code 12: go build failed",
        layouts={},
    )
    judged = verdicts.judge(side(plans.BEFORE, "v4.1.0", legacy="failed"), missing)
    assert judged.verdict == plans.NOT_RUN
    assert (
        judged.reason == "no report from v4.1.1 (after): exit code 12: go build failed"
    )


def test_a_harness_error_is_not_run():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy="failed", initless="error"),
        side(plans.AFTER, "v4.1.2", legacy="passed", initless="passed"),
    )
    assert judged.verdict == plans.NOT_RUN
    assert (
        "harness error on v4.1.0 (before) in initless: error in initless"
        in judged.reason
    )


def test_a_side_where_it_ran_nowhere_is_not_run():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy="skipped", initless="absent"),
        side(plans.AFTER, "v4.1.2", legacy="passed", initless="passed"),
    )
    assert judged.verdict == plans.NOT_RUN
    assert judged.reason == (
        "ran in no layout on v4.1.0 (before): legacy: skipped (skipped in legacy); "
        "initless: absent (absent in initless)"
    )


def test_a_failure_only_where_after_did_not_run_is_not_run():
    judged = verdicts.judge(
        side(plans.BEFORE, "v4.1.0", legacy="failed", initless="passed"),
        side(plans.AFTER, "v4.1.2", legacy="skipped", initless="passed"),
    )
    assert judged.verdict == plans.NOT_RUN
    assert "only in legacy" in judged.reason


ENVIRONMENT = (
    "[gw0] linux -- Python 3.11\n"
    "E   AssertionError: pod pod-environment-v6nzm:\n"
    "E     WPC-POD-005: common env of every container the controller built: ...\n"
)


def test_with_the_fixs_clause_a_failure_on_other_clauses_counts_as_passed(
    tmp_path: Path,
):
    """PodEnvironment on v4.0.0-rc4: WPC-POD-005 fails (a v4.1 feature), WPC-POD-007 holds.

    Failed before: the fix of WPC-POD-007 was judged broken-after on that failure.
    """
    path = scenario_report(
        tmp_path / "r.yaml", SIGTERM, {"legacy": "failed"}, message=ENVIRONMENT
    )
    document = yaml.safe_load(path.read_text())
    found = verdicts.layout_outcomes(document, SIGTERM, BOTH, clause="WPC-POD-007")
    assert found["legacy"].outcome == verdicts.OTHER
    assert found["legacy"].message.startswith(
        "failed only on clauses other than WPC-POD-007: AssertionError: pod"
    )
    named = verdicts.layout_outcomes(document, SIGTERM, BOTH, clause="WPC-POD-005")
    assert named["legacy"] == LayoutOutcome(
        "failed",
        "WPC-POD-005: common env of every container the controller built: ...",
    )
    whole = verdicts.layout_outcomes(document, SIGTERM, BOTH)
    assert whole["legacy"].outcome == "failed"  # no clause: the whole outcome


ORPHANS = (
    "[gw1] linux -- Python 3.11\n"
    "E   AssertionError: WPC-RECOVERY-005: deleted-down: Failed 'Error (exit code 3)'\n"
    "E     WPC-FINALIZER-007: not within its limit: orphans still there\n"
)


def test_the_evidence_of_a_fix_judged_by_its_clause_is_that_clauses_line(
    tmp_path: Path,
):
    """RecoveryWithStatusFinalizer on v3.6.0 fails on two clauses, one line each.

    The fix (orphaned-pods-keep-finalizer) is judged by WPC-FINALIZER-007, so its
    evidence must quote that line, not the first one (WPC-RECOVERY-005).
    """
    path = scenario_report(
        tmp_path / "r.yaml", SIGTERM, {"legacy": "failed"}, message=ORPHANS
    )
    document = yaml.safe_load(path.read_text())
    found = verdicts.layout_outcomes(
        document, SIGTERM, BOTH, clause="WPC-FINALIZER-007"
    )
    assert found["legacy"] == LayoutOutcome(
        "failed", "WPC-FINALIZER-007: not within its limit: orphans still there"
    )
    whole = verdicts.layout_outcomes(document, SIGTERM, BOTH)
    assert whole["legacy"].message.startswith("AssertionError: WPC-RECOVERY-005")


def test_a_failure_only_on_other_clauses_passes_after_and_proves_nothing_before():
    """grace-period-only-on-wait is caught; a tag that failed only elsewhere is not judged.

    As orphaned-pods-keep-finalizer was on v3.6.0 while RecoveryWithStatusFinalizer
    stopped at WPC-RECOVERY-005 before its orphan wait.
    """
    before = side("before", "v3.7.0-rc3", legacy="failed")
    after = side("after", "v4.0.0-rc4", legacy=verdicts.OTHER)
    assert verdicts.judge(before, after).verdict == plans.CAUGHT
    stopped = side("before", "v3.6.0", legacy=verdicts.OTHER)
    judged = verdicts.judge(stopped, side("after", "v3.7.0-rc3", legacy="passed"))
    assert judged.verdict == plans.NOT_RUN
    assert "only on other clauses" in judged.reason
