"""We test these aspects of the JUnit writer:

- failed, error and skipped records become <failure>, <error> and <skipped>;
- clause IDs, layout and attempts are properties of each test case;
- a test case is named by the stable identity (class ShortName), the same from
  a checkout and from an installed suite.
"""

from __future__ import annotations

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
