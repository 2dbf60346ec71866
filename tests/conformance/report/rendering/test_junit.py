"""We test these aspects of the JUnit writer:

- failed, error and skipped records become <failure>, <error> and <skipped>;
- clause IDs, layout and attempts are properties of each test case;
- a long failure keeps its head and its exception (the `E` lines), and the JUnit
  message is that exception, not a truncation marker;
- a test case is named by the stable identity (class ShortName), the same from
  a checkout and from an installed suite.
"""

from __future__ import annotations

from conformance.report.items import records
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.rendering import junit


def record(name: str, outcome: Outcome) -> TestRecord:
    rec = TestRecord(
        nodeid=f"conformance/tests/test_x.py::test_{name}[legacy]",
        short_name="X",
        layout="legacy",
        clauses=["WPC-POD-001"],
        features=[],
        support="Core",
        profiles=["pod"],
        scenario=f"conformance/tests/test_x.py::test_{name}",
        message=f"{name} message",
    )
    rec.log("call", outcome)
    return rec


def test_outcomes_map_to_junit_elements():
    tree = junit.document(
        [record(o.value, o) for o in Outcome], suite_name="wpc-reference"
    ).getroot()
    assert tree.attrib["failures"] == "1"
    assert tree.attrib["errors"] == "1"
    assert tree.attrib["skipped"] == "1"
    tags = {c.attrib["name"]: [e.tag for e in c if e.tag != "properties"] for c in tree}
    assert tags == {
        "test_passed[legacy]": [],
        "test_failed[legacy]": ["failure"],
        "test_skipped[legacy]": ["skipped"],
        "test_error[legacy]": ["error"],
    }
    props = {p.attrib["name"]: p.attrib["value"] for p in tree[0].iter("property")}
    assert props["clauses"] == "WPC-POD-001"
    assert props["layout"] == "legacy"


def test_a_test_case_is_named_by_its_identity_not_its_install_path():
    here, there = record("passed", Outcome.PASSED), record("passed", Outcome.PASSED)
    there.nodeid = "venv/lib/python3.11/site-packages/" + there.nodeid
    there.test_id = ""
    there.__post_init__()
    cases = [
        junit.document([r], suite_name="wpc-reference").getroot()[0]
        for r in (here, there)
    ]
    assert [(c.attrib["classname"], c.attrib["name"]) for c in cases] == [
        ("X", "test_passed[legacy]"),
        ("X", "test_passed[legacy]"),
    ]
    props = {p.attrib["name"]: p.attrib["value"] for p in cases[1].iter("property")}
    assert props["id"] == "X::test_passed[legacy]"


LONG_FAILURE = "\n".join(
    [
        "    def test_x(workflows):",
        *(f"        step_{i}()" for i in range(600)),
        ">       workflow = workflows.wait_completed(name)",
        "E       conformance.errors.WaitTimeout: timed out after 180 s waiting for"
        " workflow w to complete; last observed: phase='Running'",
        "",
        "conformance/harness/cluster/watching.py:138: WaitTimeout",
    ]
)


def test_a_long_failure_keeps_its_exception_in_the_report_and_the_junit_message():
    # A WaitTimeout's last observed state is the evidence; a report that kept only
    # the traceback's head lost it (upstream stability runs, 2026-11-28).
    rec = record("failed", Outcome.FAILED)
    rec.message = records.shortened(LONG_FAILURE)
    assert len(rec.message) < len(LONG_FAILURE)
    assert rec.message.startswith("    def test_x(workflows):")
    assert "last observed: phase='Running'" in rec.message
    assert "characters cut" in rec.message
    failure = junit.document([rec], suite_name="s").getroot()[0].find("failure")
    assert failure is not None
    assert failure.attrib["message"].startswith(
        "conformance.errors.WaitTimeout: timed out after 180 s"
    )


def test_a_short_message_is_kept_whole_and_without_e_lines_summarised_by_its_last():
    assert records.shortened("boom") == "boom"
    rec = record("failed", Outcome.FAILED)
    rec.message = "first\nlast line"
    failure = junit.document([rec], suite_name="s").getroot()[0].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "last line"
