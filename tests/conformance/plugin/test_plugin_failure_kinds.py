"""We test these aspects of the failure kinds (issue 11), unit and end to end with pytester:

- an AssertionError in the body is `assertion`, and its message's clause IDs are
  `failedClauses` (in order, once each; clauses cited by the marker do not count);
- a WaitTimeout (the suite's, which is also an AssertionError, or plumbing's) and
  pytest-timeout's failure are `timeout`, with no clauses;
- any other exception, and any setup failure, is `harness-error`, with no clauses;
- passed and skipped items have `failureKind: null`; the report stays schema-valid,
  and the schema refuses clauses on a timeout and a kind on a passed item;
- a rerun keeps the last attempt's kind only;
- a wait in `watching.clause_limit(clause)` (its timeout is the clause's limit)
  fails as an assertion naming the clause; other errors pass through.
"""

from __future__ import annotations

import textwrap

import jsonschema
import pytest
import yaml

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import Outcome
from conformance.report.items.outcomes import failed_clauses
from conformance.report.items.outcomes import failure_kind
from conformance.report.items.records import TestRecord
from conformance.report.runs import documents
from plumbing import errors as plumbing_errors
from tests.conformance.conftest import wpc_args

CASES = textwrap.dedent(
    """
    import pytest
    from conformance.errors import WaitTimeout

    @pytest.fixture
    def broken():
        raise AssertionError("WPC-POD-001: a fixture is harness, whatever it says")

    @pytest.mark.conformance(short_name="Kinds", clauses=["WPC-POD-001"])
    @pytest.mark.parametrize("case", ["pass", "named", "unnamed", "timeout", "keyerror", "skip"])
    def test_kinds(case):
        if case == "named":
            owners = []
            assert owners, "WPC-POD-003: no ownerReference; WPC-POD-003 again, WPC-LEGACY-002"
        if case == "unnamed":
            assert 1 == 2, "something else broke"
        if case == "timeout":
            raise WaitTimeout(describe="WPC-POD-001 phase", timeout=1, last_observed="Running")
        if case == "keyerror":
            {}["status"]
        if case == "skip":
            pytest.skip("not claimed")

    @pytest.mark.conformance(short_name="Kinds", clauses=["WPC-POD-001"])
    def test_setup_failure(broken):
        pass
    """
)


def timeout_exc() -> BaseException:
    return WaitTimeout(describe="d", timeout=1, last_observed="o")


@pytest.mark.parametrize(
    ("when", "exc", "kind"),
    [
        ("call", AssertionError("WPC-POD-003: x"), FailureKind.ASSERTION),
        ("call", timeout_exc(), FailureKind.TIMEOUT),
        (
            "call",
            plumbing_errors.WaitTimeout(describe="d", timeout=1, last_observed="o"),
            FailureKind.TIMEOUT,
        ),
        ("call", KeyError("status"), FailureKind.HARNESS_ERROR),
        ("call", HarnessError("h"), FailureKind.HARNESS_ERROR),
        ("setup", AssertionError("WPC-POD-003"), FailureKind.HARNESS_ERROR),
        ("setup", timeout_exc(), FailureKind.TIMEOUT),
    ],
)
def test_failure_kinds(when, exc, kind):
    assert failure_kind(when=when, exc=exc) is kind


def test_pytest_timeouts_failure_is_a_timeout():
    with pytest.raises(pytest.fail.Exception) as caught:
        pytest.fail("Timeout (>90.0s) from pytest-timeout.")
    assert failure_kind(when="call", exc=caught.value) is FailureKind.TIMEOUT
    with pytest.raises(pytest.fail.Exception) as other:
        pytest.fail("WPC-POD-003: explicitly failed")
    assert failure_kind(when="call", exc=other.value) is FailureKind.HARNESS_ERROR


def test_only_an_assertion_has_clauses():
    named = AssertionError("WPC-POD-003 and WPC-LEGACY-002, WPC-POD-003; WPC-pod-1")
    assert failed_clauses(FailureKind.ASSERTION, named) == [
        "WPC-POD-003",
        "WPC-LEGACY-002",
    ]
    assert failed_clauses(FailureKind.TIMEOUT, named) == []
    assert failed_clauses(FailureKind.HARNESS_ERROR, named) == []


def record() -> TestRecord:
    return TestRecord(
        nodeid="t.py::test[legacy]",
        short_name="T",
        layout="legacy",
        clauses=["WPC-POD-001"],
        features=[],
        support="Core",
        profiles=[],
        scenario="t.py::test",
    )


def test_a_rerun_keeps_the_last_attempts_kind():
    r = record()
    r.log("setup", Outcome.PASSED)
    r.log("call", Outcome.FAILED)
    r.note_failure("call", {"kind": "timeout", "clauses": []})
    r.log("setup", Outcome.PASSED)
    r.log("call", Outcome.PASSED)
    r.log("teardown", Outcome.PASSED)
    assert (r.failure_kind, r.failed_clauses) == (None, [])
    r.log("setup", Outcome.PASSED)
    r.log("call", Outcome.FAILED)
    r.note_failure("call", {"kind": "assertion", "clauses": ["WPC-POD-001"]})
    r.log("teardown", Outcome.ERROR)
    r.note_failure("teardown", {"kind": "harness-error", "clauses": []})
    assert (r.failure_kind, r.failed_clauses) == (
        FailureKind.ASSERTION,
        ["WPC-POD-001"],
    )


def test_a_failure_without_a_kind_is_a_harness_error():
    r = record()
    r.log("call", Outcome.FAILED)
    assert (r.failure_kind, r.failed_clauses) == (FailureKind.HARNESS_ERROR, [])


def test_each_failed_item_has_its_kind_and_clauses_in_the_report(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_kinds=CASES)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(
        *wpc_args("--wpc-layout", "legacy", "--wpc-report", str(report))
    )
    result.assert_outcomes(passed=1, failed=4, skipped=1, errors=1)

    doc = yaml.safe_load(report.read_text())
    documents.validate(doc)
    kinds = {
        t["nodeid"].split("[")[-1].rstrip("]"): (t["failureKind"], t["failedClauses"])
        for t in doc["tests"]
    }
    assert kinds == {
        "legacy-pass": (None, []),
        "legacy-named": ("assertion", ["WPC-POD-003", "WPC-LEGACY-002"]),
        "legacy-unnamed": ("assertion", []),
        "legacy-timeout": ("timeout", []),
        "legacy-keyerror": ("harness-error", []),
        "legacy-skip": (None, []),
        "legacy": ("harness-error", []),
    }

    timed_out = next(t for t in doc["tests"] if t["failureKind"] == "timeout")
    timed_out["failedClauses"] = ["WPC-POD-001"]
    with pytest.raises(jsonschema.ValidationError, match="WPC-POD-001"):
        documents.validate(doc)
    timed_out["failedClauses"] = []
    passed = next(t for t in doc["tests"] if t["outcome"] == "passed")
    passed["failureKind"] = "assertion"
    with pytest.raises(jsonschema.ValidationError, match="None was expected"):
        documents.validate(doc)


def test_a_wait_on_a_limit_the_clause_sets_fails_as_an_assertion_naming_it():
    from conformance.harness.cluster import watching

    with (
        pytest.raises(AssertionError) as caught,
        watching.clause_limit("WPC-FINALIZER-006"),
    ):
        raise timeout_exc()
    kind = failure_kind(when="call", exc=caught.value)
    assert kind is FailureKind.ASSERTION
    assert failed_clauses(kind, caught.value) == ["WPC-FINALIZER-006"]
    with pytest.raises(KeyError), watching.clause_limit("WPC-FINALIZER-006"):
        raise KeyError("status")
