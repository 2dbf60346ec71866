"""We test how rerun verdicts are folded into a diff (`wpc.diff.reruns`):

- an item whose every old rerun matches the old report and every new rerun the
  new report is confirmed; any disagreement, on either side, is flaky;
- without a verdict from both versions (no records, or only `absent` ones) it
  stays "not rerun";
- a flaky regression no longer makes the diff regressed, a confirmed one does;
  a clause regression is flaky exactly when every failing item behind it is
  (an added failing item keeps it a regression);
- records for an item that does not differ are refused;
- the document lists every rerun with its report, and the table says which
  way each version went, then the verdict says how many flipped.
"""

from __future__ import annotations

import pytest
import yaml

from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc.diff import comparing
from wpc.diff import rendering
from wpc.diff import reruns
from wpc.diff.comparing import RerunRecord


def records(old: list[str], new: list[str]) -> list[RerunRecord]:
    found = [
        RerunRecord("old", i, outcome, f"old-{i}.yaml")
        for i, outcome in enumerate(old, 1)
    ]
    return found + [
        RerunRecord("new", i, outcome, f"new-{i}.yaml")
        for i, outcome in enumerate(new, 1)
    ]


def regression(**kwargs):
    return comparing.compare(
        report([entry("A", "legacy", "passed", **kwargs)]),
        report([entry("A", "legacy", "failed", **kwargs)]),
    )


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        (["passed", "passed"], ["failed", "failed"], "confirmed"),
        (["passed"], ["failed"], "confirmed"),
        (["passed", "failed"], ["failed", "failed"], "flaky"),
        (["passed", "passed"], ["failed", "passed"], "flaky"),
        (["failed"], ["passed"], "flaky"),
        (["passed", "absent"], ["failed"], "confirmed"),
        (["absent"], ["failed"], "not rerun"),
        ([], ["failed"], "not rerun"),
        ([], [], "not rerun"),
    ],
)
def test_an_item_is_confirmed_flaky_or_not_rerun(old, new, status):
    change = regression().items[0]
    assert reruns.classify(change, records(old, new)).status == status


def test_a_flaky_regression_does_not_regress_the_diff_a_confirmed_one_does():
    diff = regression()
    key = diff.items[0].new.key
    flaky = reruns.apply(diff, {key: records(["failed"], ["failed"])})
    assert flaky.items[0].flaky
    assert [c.flaky for c in flaky.clauses_of_kind("regression")] == [True]
    assert not flaky.regressed
    confirmed = reruns.apply(diff, {key: records(["passed"], ["failed"])})
    assert not confirmed.items[0].flaky
    assert confirmed.clauses_of_kind("regression")[0].flaky is False
    assert confirmed.regressed
    assert diff.regressed  # the offline diff is untouched
    assert diff.items[0].rerun.status == "not rerun"


def test_a_clause_regressed_by_an_added_item_stays_a_regression():
    diff = comparing.compare(
        report([entry("A", "legacy", "passed")]),
        report([entry("A", "legacy", "failed"), entry("B", "legacy", "failed")]),
    )
    key = diff.items[0].new.key
    applied = reruns.apply(diff, {key: records(["failed"], ["failed"])})
    assert applied.items[0].flaky
    assert [c.flaky for c in applied.clauses_of_kind("regression")] == [False]
    assert applied.regressed


def test_records_for_an_item_that_does_not_differ_are_refused():
    with pytest.raises(ValueError, match=r"not a differing item"):
        reruns.apply(regression(), {("nope", "legacy"): []})


def test_the_document_and_table_carry_the_evidence():
    diff = regression()
    key = diff.items[0].new.key
    applied = reruns.apply(
        diff, {key: records(["passed", "failed"], ["failed", "failed"])}
    )
    document = yaml.safe_load(rendering.yaml_text(applied))
    assert document["rerun"] is True
    assert document["regressed"] is False
    assert document["summary"]["flakyItems"] == 1
    (item,) = document["items"]["regressions"]
    assert item["rerun"] == "flaky"
    assert {
        (r["side"], r["round"], r["outcome"], r["report"]) for r in item["reruns"]
    } == {
        ("old", 1, "passed", "old-1.yaml"),
        ("old", 2, "failed", "old-2.yaml"),
        ("new", 1, "failed", "new-1.yaml"),
        ("new", 2, "failed", "new-2.yaml"),
    }
    table = rendering.table(applied)
    assert "flaky (old passed, passed, failed; new failed, failed, failed)" in table
    assert "regression (flaky)" in table
    assert "1 flaky on rerun" in table
    assert "verdict: no regression (differing items rerun; 1 flipped on rerun" in table


def test_an_offline_diff_still_says_not_rerun():
    document = yaml.safe_load(rendering.yaml_text(regression()))
    assert document["rerun"] is False
    assert document["items"]["regressions"][0]["rerun"] == "not rerun"
    assert "reruns" not in document["items"]["regressions"][0]
    assert "differing items are not rerun offline" in rendering.table(regression())
