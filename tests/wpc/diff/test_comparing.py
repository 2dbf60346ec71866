"""We test these aspects of `wpc.diff.comparing` (pure, no files):

- items are keyed by test id and layout: passed -> failed or error is a
  regression, failed or error -> passed a fix, anything else "changed", and
  only the first two kinds decide `regressed`;
- every differing item says it was not rerun;
- items only one report has are added or removed, not changes;
- a clause's verdict per layout is the worst of its tests', so a clause can
  regress through a test the old report did not have;
- clauses named only by one report (coverage or tests) are added or removed;
- claimed features and layouts that appear or disappear are listed;
- first try versus final verdict is listed when either report differs;
- durations that moved by the ratio either way are listed, short ones and
  unchanged ones are not, and a ratio of 1 or less is refused.
"""

from __future__ import annotations

import pytest

from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc.diff import comparing


def diff_of(old, new, **kwargs):
    return comparing.compare(report(old), report(new), **kwargs)


@pytest.mark.parametrize(
    ("was", "now", "kind"),
    [
        ("passed", "failed", "regression"),
        ("passed", "error", "regression"),
        ("failed", "passed", "fix"),
        ("error", "passed", "fix"),
        ("passed", "skipped", "changed"),
        ("failed", "error", "changed"),
        ("skipped", "passed", "changed"),
    ],
)
def test_an_outcome_change_is_classified(was, now, kind):
    diff = diff_of([entry("A", "legacy", was)], [entry("A", "legacy", now)])
    assert [(c.kind, c.old.outcome, c.new.outcome) for c in diff.items] == [
        (kind, was, now)
    ]
    assert diff.regressed is (kind == "regression")


def test_items_are_keyed_by_layout_and_marked_not_rerun():
    old = [entry("A", "legacy"), entry("A", "initless")]
    new = [entry("A", "legacy"), entry("A", "initless", "failed")]
    diff = diff_of(old, new)
    assert [(c.new.layout, c.kind, c.rerun.status) for c in diff.items] == [
        ("initless", "regression", "not rerun")
    ]


def test_unchanged_reports_do_not_regress():
    tests = [entry("A", "legacy"), entry("B", "legacy", "failed")]
    diff = diff_of(tests, tests)
    assert not diff.items
    assert not diff.clauses
    assert not diff.regressed


def test_items_of_one_report_only_are_added_or_removed():
    diff = diff_of(
        [entry("A", "legacy"), entry("Gone", "legacy", "failed")],
        [entry("A", "legacy"), entry("New", "legacy", "failed")],
    )
    assert [i.short_name for i in diff.added] == ["New"]
    assert [i.short_name for i in diff.removed] == ["Gone"]
    assert diff.items == []
    assert not diff.regressed


def test_a_clause_regresses_through_a_new_failing_test():
    old = [entry("A", "legacy", clauses=("WPC-POD-001",))]
    new = [*old, entry("B", "legacy", "failed", clauses=("WPC-POD-001",))]
    diff = diff_of(old, new)
    assert diff.items == []
    assert [(c.kind, c.clause, c.layout, c.tests) for c in diff.clauses] == [
        ("regression", "WPC-POD-001", "legacy", ("A", "B"))
    ]
    assert diff.regressed


def test_clause_verdict_is_the_worst_outcome_and_all_skipped_is_skipped():
    items = comparing.items_of(
        report(
            [
                entry("A", "legacy", clauses=("C-1", "C-2")),
                entry("B", "legacy", "error", clauses=("C-1",)),
                entry("D", "legacy", "failed", clauses=("C-1",)),
                entry("E", "legacy", "skipped", clauses=("C-3",)),
                entry("F", "initless", "skipped", clauses=("C-2",)),
            ]
        )
    ).values()
    assert comparing.clause_verdicts(items) == {
        ("C-1", "legacy"): "error",
        ("C-2", "legacy"): "passed",
        ("C-3", "legacy"): "skipped",
        ("C-2", "initless"): "skipped",
    }


def test_clauses_named_by_one_report_only_are_added_or_removed():
    old = comparing.compare(
        report(
            [entry("A", "legacy", clauses=("WPC-POD-001",))], uncovered=("WPC-POD-002",)
        ),
        report([entry("A", "legacy", clauses=("WPC-POD-001", "WPC-POD-003"))]),
    )
    assert old.clauses_added == ["WPC-POD-003"]
    assert old.clauses_removed == ["WPC-POD-002"]


def test_claims_that_appear_or_disappear_are_listed():
    diff = comparing.compare(
        report([], features=("RETRY", "POD_GC"), layouts=("legacy", "initless")),
        report([], features=("POD_GC", "DEADLINE"), layouts=("legacy",)),
    )
    assert diff.features_claimed == ["DEADLINE"]
    assert diff.features_unclaimed == ["RETRY"]
    assert diff.layouts_claimed == []
    assert diff.layouts_unclaimed == ["initless"]


def test_first_try_differences_of_either_report_are_listed():
    diff = diff_of(
        [entry("A", "legacy"), entry("B", "legacy", first="failed", attempts=2)],
        [entry("A", "legacy", first="failed", attempts=3), entry("B", "legacy")],
    )
    rows = [
        (
            c.item.short_name,
            c.old.first_outcome if c.old else None,
            c.new.attempts if c.new else None,
        )
        for c in diff.first_try
    ]
    assert rows == [("A", "passed", 3), ("B", "failed", 1)]
    assert not diff.regressed


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        (10.0, 15.0, True),
        (10.0, 14.9, False),
        (15.0, 10.0, True),
        (14.9, 10.0, False),
        (0.2, 0.9, False),
        (0.0, 30.0, False),
    ],
)
def test_durations_that_moved_by_the_ratio_are_listed(before, after, moved):
    diff = diff_of(
        [entry("A", "legacy", seconds=before)], [entry("A", "legacy", seconds=after)]
    )
    assert bool(diff.timings) is moved
    if moved:
        assert diff.timings[0].ratio == pytest.approx(after / before)


def test_the_timing_ratio_is_configurable_and_must_exceed_one():
    tests = ([entry("A", "legacy", seconds=10.0)], [entry("A", "legacy", seconds=12.0)])
    assert diff_of(*tests, timing_ratio=1.2).timings
    assert not diff_of(*tests).timings
    with pytest.raises(ValueError, match="above 1"):
        diff_of(*tests, timing_ratio=1.0)
