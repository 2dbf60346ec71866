"""We test how attempts are counted and how the items that needed a rerun are listed (pure):

- a record's attempts open with each setup report, or with a phase the current
  attempt already has (a rerun that repeats only the body); the first outcome is
  the first attempt's, the final outcome the last one's;
- without reruns every record has one attempt and first = final, and the summary
  says "Needed a rerun: 0";
- the report's `attempts.retried` and the summary list each item with more than one
  attempt (ShortName, layout, outcomes, attempts), flakes apart from items that
  failed every time, sorted by layout in the summary; divergence checks never count;
- the HTML page's label of a report entry, also one written before ShortName and
  layout were recorded.
"""

from __future__ import annotations

from conformance.report.items import reruns
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord

PASSED, FAILED, ERROR = Outcome.PASSED, Outcome.FAILED, Outcome.ERROR


def record(
    name: str, layout: str, *phases: tuple[str, Outcome], kind: str = "scenario"
) -> TestRecord:
    found = TestRecord(
        nodeid=f"t.py::test_{name}[{layout}]",
        short_name=name,
        layout=layout,
        clauses=["WPC-POD-001"],
        features=[],
        support="Core",
        profiles=["-"],
        scenario=f"t.py::test_{name}",
        kind=kind,
    )
    for when, outcome in phases:
        found.log(when, outcome)
    return found


def test_each_setup_opens_an_attempt() -> None:
    found = record(
        "A",
        "legacy",
        ("setup", ERROR),
        ("setup", PASSED),
        ("call", FAILED),
        ("setup", PASSED),
        ("call", PASSED),
        ("teardown", PASSED),
    )
    assert found.tries == [
        {"setup": ERROR},
        {"setup": PASSED, "call": FAILED},
        {"setup": PASSED, "call": PASSED, "teardown": PASSED},
    ]
    assert (found.attempts, found.first_outcome, found.outcome) == (3, ERROR, PASSED)


def test_a_repeated_body_without_setup_is_another_attempt() -> None:
    found = record("A", "legacy", ("call", FAILED), ("call", PASSED))
    assert (found.attempts, found.first_outcome, found.outcome) == (2, FAILED, PASSED)


def test_one_attempt_has_the_same_first_and_final_outcome() -> None:
    found = record(
        "A", "legacy", ("setup", PASSED), ("call", FAILED), ("teardown", ERROR)
    )
    assert (found.attempts, found.first_outcome, found.outcome) == (1, FAILED, FAILED)
    assert reruns.retried([found]) == []
    assert reruns.summary([found]) == ["Needed a rerun: 0"]


def test_items_with_several_attempts_are_listed() -> None:
    records = [
        record("Flaky", "legacy", ("call", FAILED), ("call", PASSED)),
        record("Fine", "legacy", ("call", PASSED)),
        record("Broken", "initless", ("call", FAILED), ("call", FAILED)),
        record(
            "Check",
            "legacy+initless",
            ("call", FAILED),
            ("call", FAILED),
            kind="divergence",
        ),
    ]
    assert reruns.retried(records) == [
        {
            "id": "Flaky::test_Flaky[legacy]",
            "nodeid": "t.py::test_Flaky[legacy]",
            "shortName": "Flaky",
            "layout": "legacy",
            "attempts": 2,
            "firstOutcome": "failed",
            "finalOutcome": "passed",
        },
        {
            "id": "Broken::test_Broken[initless]",
            "nodeid": "t.py::test_Broken[initless]",
            "shortName": "Broken",
            "layout": "initless",
            "attempts": 2,
            "firstOutcome": "failed",
            "finalOutcome": "failed",
        },
    ]
    assert reruns.summary(records) == [
        "Needed a rerun: 2",
        "  [initless] Broken: 2 attempts, failed on the first and the last "
        "(Broken::test_Broken[initless])",
        "  [legacy] Flaky: 2 attempts, flaky: failed first, passed at last "
        "(Flaky::test_Flaky[legacy])",
    ]


def test_a_report_entry_is_labelled_with_or_without_name_and_layout() -> None:
    entry = {
        "nodeid": "t.py::test_flaky[legacy]",
        "shortName": "Flaky",
        "layout": "legacy",
        "attempts": 2,
        "firstOutcome": "failed",
        "finalOutcome": "passed",
    }
    assert reruns.label(entry) == "Flaky [legacy]: failed then passed (2 attempts)"
    older = {k: v for k, v in entry.items() if k not in ("shortName", "layout")}
    assert reruns.label(older) == (
        "t.py::test_flaky[legacy]: failed then passed (2 attempts)"
    )
