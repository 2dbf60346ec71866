"""We test these aspects of the verdict table a run ends with:

- per layout, Core and Extended rows count passed, failed, not claimed and
  harness errors, with a verdict per row;
- every failure and harness error is listed with its layout, ShortName,
  clauses and the first line of its message;
- an interrupted run's rows are never PASS (a failure stays FAIL), and a line
  says what stopped it and how many tests ran, were cut short, never started;
- end to end (pytester), the table is printed in the run's summary, then how many
  items needed a rerun (none here), before the report's path.
"""

from __future__ import annotations

import textwrap

import pytest

from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.rendering import verdicttable
from tests.conformance.conftest import wpc_args


def record(name, layout, support, outcome, message=""):
    found = TestRecord(
        nodeid=f"t.py::test_{name}[{layout}]",
        short_name=name,
        layout=layout,
        clauses=["WPC-POD-001"],
        features=[],
        support=support,
        profiles=["-"],
        scenario=f"t.py::test_{name}",
        message=message,
    )
    found.log("call", outcome)
    return found


def test_table_counts_per_layout_and_support_and_lists_failures():
    lines = verdicttable.table(
        [
            record("A", "legacy", "Core", Outcome.PASSED),
            record(
                "B",
                "legacy",
                "Core",
                Outcome.FAILED,
                "AssertionError: pod had 3 containers\nmore",
            ),
            record("C", "legacy", "Extended", Outcome.SKIPPED),
            record(
                "D", "initless", "Core", Outcome.ERROR, "CommandError: kubectl exited 1"
            ),
        ]
    )
    text = "\n".join(lines)
    assert (
        "legacy     Core                  1             1             0             0  FAIL"
        in text
    )
    assert (
        "legacy     Extended              0             0             1             0  -"
        in text
    )
    assert (
        "initless   Core                  0             0             0             1  ERROR"
        in text
    )
    assert (
        "  FAILED [legacy] B (WPC-POD-001): AssertionError: pod had 3 containers"
        in text
    )
    assert "  ERROR  [initless] D (WPC-POD-001): CommandError: kubectl exited 1" in text


def test_no_records_no_table():
    assert verdicttable.table([]) == []


INTERRUPTED = {
    "reason": "SIGTERM",
    "ran": ["t.py::test_A[legacy]", "t.py::test_B[legacy]"],
    "unfinished": ["t.py::test_C[legacy]"],
    "collected": 10,
}


def test_an_interrupted_run_is_never_pass():
    passed = record("A", "legacy", "Core", Outcome.PASSED)
    failed = record("B", "legacy", "Extended", Outcome.FAILED, "AssertionError: x")
    text = "\n".join(verdicttable.table([passed, failed], interrupted=INTERRUPTED))
    assert (
        "legacy     Core                  1             0             0             0  "
        "INTERRUPTED" in text
    )
    assert (
        "legacy     Extended              0             1             0             0  FAIL"
        in text
    )
    assert (
        "INTERRUPTED (SIGTERM): 2 of 10 tests ran, 1 cut short (not counted), "
        "7 never started" in text
    )
    # Interrupted before any test ended: the one line, no table.
    assert verdicttable.table([], interrupted=INTERRUPTED) == [
        verdicttable.interruption(INTERRUPTED)
    ]


def test_a_run_ends_with_the_table_then_the_report(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_hello=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Hello", clauses=["WPC-POD-001"])
            def test_hello():
                pass
            """
        )
    )
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report)))
    result.stdout.fnmatch_lines(
        [
            "*wpc conformance*",
            "layout     support*passed*failed*not claimed*harness error  verdict",
            "initless   Core * 1 * 0 * 0 * 0  PASS",
            "legacy     Core * 1 * 0 * 0 * 0  PASS",
            "",
            "result: PASS (every claimed item passed)",
            "",
            "Needed a rerun: 0",
            "",
            f"*{report}*",
        ]
    )
