"""We test the chaos half of a qualification's diff (pure, hand-made ChaosReports):

- a case (experiment, layout) whose outcome differs is a change of the suite's
  kinds: passed -> failed is a regression, failed -> passed a fix, passed ->
  injection-unverified only a change;
- a case not applicable on either side is listed with its reason and is no
  change, so it never makes the diff a regression;
- cases only one report holds are added or removed;
- a chaos regression makes the whole diff a regression unless it flipped on
  rerun or an `experiment` entry explains it, and such an entry explains no
  conformance item, nor a clause/test entry a chaos case;
- a file that is not a ChaosReport is refused, naming the file.
"""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from conformance.errors import DataError
from tests.wpc.diff.builders import chaos_report
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from wpc.diff import chaoscases
from wpc.diff import comparing
from wpc.diff import explaining
from wpc.diff import rendering
from wpc.diff import reruns
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import RerunRecord

OLD = {
    ("pod-deleted-while-main-runs", "legacy"): "passed",
    ("controller-restarted-while-suspended", "legacy"): "failed",
    ("main-oom-killed", "legacy"): "passed",
    ("wait-killed-while-main-runs", "legacy"): "not-applicable",
    ("kubelet-restarted-while-main-runs", "legacy"): "passed",
    ("apiserver-unavailable", "legacy"): "passed",
}
NEW = {
    ("pod-deleted-while-main-runs", "legacy"): "failed",
    ("controller-restarted-while-suspended", "legacy"): "passed",
    ("main-oom-killed", "legacy"): "injection-unverified",
    ("wait-killed-while-main-runs", "legacy"): "passed",
    ("kubelet-restarted-while-main-runs", "legacy"): "passed",
    ("worker-frozen-while-main-runs", "legacy"): "failed",
}


def chaos_diff() -> comparing.ChaosDiff:
    return chaoscases.compare(chaos_report(OLD), chaos_report(NEW))


def test_differing_cases_are_changes_of_the_suite_s_kinds():
    diff = chaos_diff()
    kinds = {(c.new.short_name, c.new.layout): c.kind for c in diff.cases}
    assert kinds == {
        ("pod-deleted-while-main-runs", "legacy"): "regression",
        ("controller-restarted-while-suspended", "legacy"): "fix",
        ("main-oom-killed", "legacy"): "changed",
    }
    assert [(i.short_name, i.outcome) for i in diff.added] == [
        ("worker-frozen-while-main-runs", "failed")
    ]
    assert [(i.short_name, i.outcome) for i in diff.removed] == [
        ("apiserver-unavailable", "passed")
    ]
    assert diff.regressed


def test_a_case_not_applicable_on_a_side_is_listed_with_its_reason_not_counted():
    diff = chaos_diff()
    (listed,) = diff.not_applicable
    assert (listed.name, listed.old, listed.new) == (
        "wait-killed-while-main-runs",
        "not-applicable",
        "passed",
    )
    assert listed.reason == "the provider cannot signal a container"
    assert all(c.new.short_name != listed.name for c in diff.cases)
    only_na = chaoscases.compare(
        chaos_report({("x", "legacy"): "passed"}),
        chaos_report({("x", "legacy"): "not-applicable"}),
    )
    assert not only_na.cases
    assert not only_na.regressed
    assert only_na.counts()["notApplicable"] == 1


def test_a_chaos_regression_counts_unless_flaky_or_explained():
    base = comparing.compare(
        report([entry("A", "legacy")]), report([entry("A", "legacy")])
    )
    diff = dataclasses.replace(base, chaos=chaos_diff())
    assert diff.regressed
    key = ("pod-deleted-while-main-runs", "legacy")

    def records(old: str, new: str) -> list[RerunRecord]:
        return [RerunRecord("old", 1, old, "o"), RerunRecord("new", 1, new, "n")]

    assert diff.chaos is not None
    flipped = dataclasses.replace(
        diff.chaos,
        cases=reruns.classify_all(diff.chaos.cases, {key: records("passed", "passed")}),
    )
    assert not dataclasses.replace(diff, chaos=flipped).regressed
    confirmed = dataclasses.replace(
        diff.chaos,
        cases=reruns.classify_all(diff.chaos.cases, {key: records("passed", "failed")}),
    )
    assert dataclasses.replace(diff, chaos=confirmed).regressed
    assert confirmed.counts()["confirmed"] == 1

    entry_ = Explanation(
        entry=1,
        old="*",
        new="*",
        kind="regression",
        explanation="upstream's pod deletion contract",
        evidence=("docs/known-deviations.md",),
        experiment="pod-deleted-*",
    )
    applied = explaining.apply(diff, [entry_], source="f")
    assert applied.chaos is not None
    assert [c.explained for c in applied.chaos.cases] == [False, False, True]
    assert not applied.regressed
    assert applied.explanations is not None
    assert applied.explanations.used == (entry_,)


def test_experiment_entries_and_test_entries_explain_only_their_own_kind():
    conformance = comparing.compare(
        report([entry("PodDeleted", "legacy")]),
        report([entry("PodDeleted", "legacy", "failed")]),
    )
    diff = dataclasses.replace(conformance, chaos=chaos_diff())
    by_experiment = Explanation(1, "*", "*", "regression", "x", ("y",), experiment="*")
    by_test = Explanation(2, "*", "*", "regression", "x", ("y",), test="*")
    applied = explaining.apply(diff, [by_experiment], source="f")
    assert [c.explanation for c in applied.items] == [None]
    assert applied.chaos is not None
    assert [c.explained for c in applied.chaos.cases if c.kind == "regression"] == [
        True
    ]
    applied = explaining.apply(diff, [by_test], source="f")
    assert [c.explanation for c in applied.items] == [by_test]
    assert applied.chaos is not None
    assert not any(c.explained for c in applied.chaos.cases)
    assert applied.regressed


def test_an_explanations_file_entry_with_an_experiment_loads_and_refuses_a_test_beside_it(
    tmp_path,
):
    good = {
        "apiVersion": "wpc.dev/v1alpha1",
        "kind": "ExplainedDifferences",
        "explanations": [
            {
                "old": "v4.1.0",
                "new": "v4.1.*",
                "experiment": "pod-deleted-while-main-runs",
                "layouts": ["legacy"],
                "kind": "regression",
                "explanation": "why",
                "evidence": ["here"],
            }
        ],
    }
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump(good))
    (loaded,) = explaining.load(path)
    assert loaded.experiment == "pod-deleted-while-main-runs"
    good["explanations"][0]["test"] = "PodDeleted"
    path.write_text(yaml.safe_dump(good))
    with pytest.raises(DataError, match=r"explanations\.0: an experiment entry"):
        explaining.load(path)


def test_a_file_that_is_not_a_chaos_report_is_refused(tmp_path):
    path = tmp_path / "chaos-x.yaml"
    path.write_text(yaml.safe_dump(report([entry("A", "legacy")])))
    with pytest.raises(
        DataError, match=r"chaos-x.yaml: key kind: expected 'ChaosReport'"
    ):
        chaoscases.read(path)
    broken = chaos_report(OLD)
    del broken["summary"]
    path.write_text(yaml.safe_dump(broken))
    with pytest.raises(
        DataError, match=r"chaos-x.yaml: the ChaosReport does not match"
    ):
        chaoscases.read(path)


def test_a_chaos_report_that_is_not_utf8_is_refused_naming_the_file(tmp_path):
    # Failed before (UnicodeDecodeError, a traceback of `qualify --rediff`): the
    # file was read with its own read_text instead of the reports' reader.
    path = tmp_path / "chaos-x.yaml"
    path.write_bytes(b"\xff\xfekind: ChaosReport\n")
    with pytest.raises(
        DataError, match=r"chaos-x.yaml: the ChaosReport is not UTF-8 text"
    ):
        chaoscases.read(path)


def test_cases_only_one_report_holds_are_rendered_with_layout_and_outcome():
    base = comparing.compare(
        report([entry("A", "legacy")]), report([entry("A", "legacy")])
    )
    diff = dataclasses.replace(base, chaos=chaos_diff())
    chaos = rendering.document(diff)["chaos"]
    assert chaos["added"] == [
        {
            "experiment": "worker-frozen-while-main-runs",
            "layout": "legacy",
            "outcome": "failed",
        }
    ]
    assert chaos["removed"] == [
        {"experiment": "apiserver-unavailable", "layout": "legacy", "outcome": "passed"}
    ]
    table = rendering.table(diff)
    assert "  added: worker-frozen-while-main-runs [legacy] (failed)\n" in table
    assert "  removed: apiserver-unavailable [legacy] (passed)\n" in table
