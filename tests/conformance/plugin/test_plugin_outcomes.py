"""We test these aspects of the outcome mapping, end to end with pytester:

- passed, failed, skipped and error stay distinct in the terminal summary;
- in a test body, AssertionError, WaitTimeout and API 4xx are "failed";
- in a test body, HarnessError, API 5xx and lost connections are "error";
- fixture (setup) failures are "error";
- the same mapping reaches the JUnit XML and the ConformanceReport.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

import pytest
import yaml

from conformance.errors import CommandError
from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.report.items import outcomes
from conformance.report.items.outcomes import Outcome
from tests.conformance.conftest import wpc_args

CASES = textwrap.dedent(
    """
    import pytest
    from kubernetes.client.exceptions import ApiException
    from conformance.errors import HarnessError, WaitTimeout

    @pytest.fixture
    def broken():
        raise RuntimeError("fixture broke")

    @pytest.mark.conformance(short_name="Outcomes", clauses=["WPC-POD-001"])
    @pytest.mark.parametrize("case", ["pass", "assert", "timeout", "api404", "harness", "api500", "conn"])
    def test_outcomes(case):
        if case == "assert":
            assert 1 == 2, "clause broken"
        if case == "timeout":
            raise WaitTimeout(describe="phase Succeeded", timeout=1, last_observed="Running")
        if case == "api404":
            raise ApiException(status=404, reason="Not Found")
        if case == "harness":
            raise HarnessError("kubectl vanished")
        if case == "api500":
            raise ApiException(status=500, reason="Internal Server Error")
        if case == "conn":
            raise ConnectionError("connection refused")

    @pytest.mark.conformance(short_name="Outcomes", clauses=["WPC-POD-001"])
    def test_setup_failure(broken):
        pass
    """
)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (AssertionError("x"), Outcome.FAILED),
        (WaitTimeout(describe="d", timeout=1, last_observed="o"), Outcome.FAILED),
        (KeyError("status"), Outcome.FAILED),
        (HarnessError("h"), Outcome.ERROR),
        (CommandError(command=["x"], returncode=1, output=""), Outcome.ERROR),
        (ConnectionError("refused"), Outcome.ERROR),
    ],
)
def test_call_phase_exceptions_map_to_failed_or_error(exc, expected):
    assert outcomes.classify(when="call", outcome="failed", exc=exc) is expected


def test_any_setup_or_teardown_failure_is_an_error():
    for when in ("setup", "teardown"):
        assert (
            outcomes.classify(when=when, outcome="failed", exc=AssertionError())
            is Outcome.ERROR
        )


def test_a_failed_body_outranks_a_teardown_error():
    phases = [
        ("setup", Outcome.PASSED),
        ("call", Outcome.FAILED),
        ("teardown", Outcome.ERROR),
    ]
    assert outcomes.combine(phases) is Outcome.FAILED
    assert (
        outcomes.combine([("call", Outcome.PASSED), ("teardown", Outcome.ERROR)])
        is Outcome.ERROR
    )


def test_outcomes_stay_distinct_in_terminal_junit_and_report(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_outcomes=CASES)
    report = suite.path / "reports" / "conformance-fake.yaml"
    junit = suite.path / "reports" / "junit-fake.xml"
    result = suite.runpytest(
        *wpc_args(
            "--wpc-layout",
            "legacy",
            "--wpc-report",
            str(report),
            "--wpc-junit",
            str(junit),
        )
    )
    result.assert_outcomes(passed=1, failed=3, errors=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED

    doc = yaml.safe_load(report.read_text())
    by_case = {
        t["nodeid"].split("[")[-1].rstrip("]"): t["outcome"] for t in doc["tests"]
    }
    assert by_case == {
        "legacy-pass": "passed",
        "legacy-assert": "failed",
        "legacy-timeout": "failed",
        "legacy-api404": "failed",
        "legacy-harness": "error",
        "legacy-api500": "error",
        "legacy-conn": "error",
        "legacy": "error",
    }
    assert doc["summary"] == {
        "passed": 1,
        "failed": 3,
        "skipped": 0,
        "errors": 4,
        "divergenceFailures": 0,
    }

    cases = ET.parse(junit).getroot().findall("testcase")
    kinds = sorted(
        child.tag for case in cases for child in case if child.tag != "properties"
    )
    assert kinds == ["error"] * 4 + ["failure"] * 3
