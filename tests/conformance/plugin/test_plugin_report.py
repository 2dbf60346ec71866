"""We test these aspects of the run's reports, end to end with pytester:

- the ConformanceReport validates against report.schema.json and carries the
  implementation, environment, per-layout Core/Extended results, the coverage
  ledger and a reproduce command;
- every run writes the HTML page beside the YAML report and names it in the
  run's final output;
- an undeclared difference between layouts fails as its own check; a declared
  one is listed, not failed;
- --require-must-coverage fails a run that leaves a MUST clause untested;
- the mutation score is null without --negative-controls; with it, the report
  carries the NegativeControlsReport's score and still validates, marked stale
  (with both commits and spec versions) when measured on other code, and the run's
  summary and HTML page say STALE next to it; a missing or invalid file, or one of
  another implementation, stops the run before any test with a usage error naming
  the file;
- every item carries its stable identity (`Finalizer[legacy]`), and so does a
  layout divergence check (`Observing[layout-divergence]`);
- a test that a rerun plugin retried is listed with its layout, first and final
  outcome and attempts in the report and under "Needed a rerun" in the summary,
  also when its first attempt failed in setup;
- under pytest-xdist the run is prepared once, not once per worker.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
import yaml

from conformance import contract
from conformance.report.runs import documents
from tests.conformance.conftest import FAKE_CLUSTER_CONFTEST
from tests.conformance.conftest import mutation_score
from tests.conformance.conftest import negative_report
from tests.conformance.conftest import wpc_args
from tests.conformance.conftest import write_yaml

OBSERVING = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Observing", clauses=["WPC-POD-001"])
    def test_observing(observations, wpc_layout):
        observations.record("workflow.phase", "Succeeded")
        observations.record("pods.main.auxContainer", "wait" if wpc_layout == "legacy" else "supervisor")
        observations.record("nodes.main.exitCode", "0" if wpc_layout == "legacy" else "65")
    """
)

FINALIZER = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Finalizer", clauses=["WPC-FINALIZER-001"])
    def test_finalizer():
        pass
    """
)


def run_with_report(
    suite: pytest.Pytester, *extra: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report), *extra))
    return result, yaml.safe_load(report.read_text())


def test_report_validates_and_carries_results_per_layout(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    result, doc = run_with_report(suite)
    result.assert_outcomes(passed=2)
    documents.validate(doc)
    assert doc["implementation"]["name"] == "fake"
    assert doc["implementation"]["images"] == [
        {
            "role": "executor",
            "ref": "example.test/executor:1.2.3",
            "digest": "sha256:" + "0" * 64,
        },
        # The suite's own image, which every profile uses (the fake hook has
        # no digest for it).
        {"role": "tools", "ref": contract.TOOLS_IMAGE, "digest": "unknown"},
    ]
    assert doc["environment"]["kubernetesVersion"] == "v1.36.4"
    assert doc["run"]["sessionId"] == "test-session"
    assert doc["run"]["reproduce"].startswith("wpc run --implementation ")
    legacy = next(r for r in doc["results"] if r["layout"] == "legacy")
    assert legacy["profile"] == "status-finalizer"
    assert legacy["extended"]["statistics"]["passed"] == 1
    assert legacy["core"]["result"] == "empty"
    assert doc["result"] == "success"
    assert doc["mutationScore"] is None
    # The stable identity: ShortName[layout], not the node ID pytest made here.
    assert [t["id"] for t in doc["tests"]] == [
        "Finalizer[legacy]",
        "Finalizer[initless]",
    ]


def test_every_run_writes_the_html_page_beside_the_report_and_names_it(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_observing=OBSERVING)
    result, doc = run_with_report(suite)
    page = suite.path / "reports" / "conformance-fake.html"
    result.stdout.fnmatch_lines([f"*{page}*"])
    text = page.read_text()
    assert "test_observing[layout-divergence]" in text
    assert "nodes.main.exitCode" in text  # the undeclared layout difference
    assert doc["result"] in text


def test_report_ledger_lists_uncovered_must_clauses(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    _, doc = run_with_report(suite)
    assert doc["coverage"]["covered"] == [
        {"id": "WPC-FINALIZER-001", "tests": ["Finalizer"]}
    ]
    assert doc["coverage"]["uncoveredMust"] == [
        "WPC-POD-001",
        "WPC-POD-002",
        "WPC-INITLESS-001",
    ]


def test_undeclared_layout_divergence_fails_as_its_own_check(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_observing=OBSERVING)
    result, doc = run_with_report(suite)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_observing?layout-divergence?*"])
    assert doc["tests"][-1]["id"] == "Observing[layout-divergence]"
    assert doc["layoutDivergences"]["undeclared"][0]["scenario"] == "Observing"
    assert doc["summary"]["divergenceFailures"] == 1
    assert doc["result"] == "failure"
    undeclared = doc["layoutDivergences"]["undeclared"][0]["differences"]
    assert undeclared == [
        {
            "key": "nodes.main.exitCode",
            "values": {"legacy": "0", "initless": "65"},
            "divergence": None,
        }
    ]
    declared = doc["layoutDivergences"]["declared"]
    assert [d["divergence"] for d in declared] == ["aux-container-name"]


def test_require_must_coverage_fails_the_run(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    result, _ = run_with_report(suite, "--wpc-require-must-coverage")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*MUST clauses without a test: WPC-POD-001, WPC-POD-002, WPC-INITLESS-001*"]
    )


def test_report_carries_the_mutation_score_of_negative_controls(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    path = write_yaml(
        suite.path / "negative-controls.yaml", negative_report(implementation="fake")
    )
    result, doc = run_with_report(suite, "--wpc-negative-controls", str(path))
    result.assert_outcomes(passed=2)
    documents.validate(doc)
    # Measured at a commit this checkout is not at, and against spec 1.0, not the
    # fixture spec this run judges: stale, and both sides named.
    here = doc["suite"]["commit"][:12]
    reason = (
        f"measured at commit 0123456789ab, this run is at commit {here}; "
        f"measured against spec 1.0, this run judges spec 0.0.1-test"
    )
    assert doc["suite"]["specVersion"] == "0.0.1-test"
    assert doc["mutationScore"]["staleReason"].startswith(reason)
    assert doc["mutationScore"] == mutation_score(
        implementation="fake",
        source=path,
        stale_reason=doc["mutationScore"]["staleReason"],
    )
    result.stdout.fnmatch_lines(
        ["Needed a rerun: 0", f"mutation score 2/8 MUST clauses*: STALE ({reason}*"]
    )
    page = (suite.path / "reports" / "conformance-fake.html").read_text()
    assert f"STALE ({reason}" in page


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (None, "cannot read the negative-controls report"),
        (
            negative_report(implementation="fake", faultScore={}),
            "invalid negative-controls report",
        ),
        (
            negative_report(),
            "broken variants of 'reference', but this run judges 'fake'",
        ),
    ],
    ids=["missing", "invalid", "other-implementation"],
)
def test_a_bad_negative_controls_file_stops_the_run(
    suite: pytest.Pytester, document: dict[str, Any] | None, problem: str
) -> None:
    suite.makepyfile(test_finalizer=FINALIZER)
    path = suite.path / "negative-controls.yaml"
    if document is not None:
        write_yaml(path, document)
    result = suite.runpytest(*wpc_args("--wpc-negative-controls", str(path)))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--wpc-negative-controls: {path}: *{problem}*"])
    assert not (suite.path / "prepared.log").exists()


# What pytest-rerunfailures does (not a dependency of WPC): run the protocol again
# after a failed phase, logging the failed attempt's reports up to that phase with
# outcome "rerun"; the last attempt's reports are logged as they are.
RERUN_CONFTEST = textwrap.dedent(
    """
    import pytest
    from _pytest.runner import runtestprotocol

    RERUNS = 2

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(item, nextitem):
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for attempt in range(RERUNS + 1):
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
            last = attempt == RERUNS or not any(r.failed for r in reports)
            for report in reports:
                if not last and report.failed:
                    report.outcome = "rerun"
                    item.ihook.pytest_runtest_logreport(report=report)
                    break
                item.ihook.pytest_runtest_logreport(report=report)
            if last:
                break
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True
    """
)

FLAKY = textwrap.dedent(
    """
    import pytest

    SEEN = {}

    def attempt(key):
        SEEN[key] = SEEN.get(key, 0) + 1
        return SEEN[key]

    @pytest.fixture
    def shaky_setup(wpc_layout):
        if wpc_layout == "initless" and attempt("setup-" + wpc_layout) == 1:
            raise RuntimeError("setup broke once")

    @pytest.mark.conformance(short_name="Flaky", clauses=["WPC-POD-001"])
    def test_flaky(wpc_layout, shaky_setup):
        if wpc_layout == "legacy":
            assert attempt("call-" + wpc_layout) > 1, "first attempt fails"
    """
)

BROKEN = textwrap.dedent(
    """
    import pytest

    @pytest.mark.conformance(short_name="Broken", clauses=["WPC-FINALIZER-001"])
    def test_broken(wpc_layout):
        assert wpc_layout != "legacy", "fails every attempt"
    """
)


def test_items_that_needed_a_rerun_are_listed_in_report_and_summary(
    suite: pytest.Pytester,
) -> None:
    suite.makeconftest(FAKE_CLUSTER_CONFTEST + RERUN_CONFTEST)
    suite.makepyfile(test_flaky=FLAKY, test_broken=BROKEN)
    result, doc = run_with_report(suite)
    documents.validate(doc)
    node = "test_{0}.py::test_{0}[{1}]"
    assert doc["attempts"]["retried"] == [
        {
            "id": "Broken[legacy]",
            "nodeid": node.format("broken", "legacy"),
            "shortName": "Broken",
            "layout": "legacy",
            "attempts": 3,
            "firstOutcome": "failed",
            "finalOutcome": "failed",
        },
        {
            "id": "Flaky[legacy]",
            "nodeid": node.format("flaky", "legacy"),
            "shortName": "Flaky",
            "layout": "legacy",
            "attempts": 2,
            "firstOutcome": "failed",
            "finalOutcome": "passed",
        },
        {
            "id": "Flaky[initless]",
            "nodeid": node.format("flaky", "initless"),
            "shortName": "Flaky",
            "layout": "initless",
            "attempts": 2,
            "firstOutcome": "error",
            "finalOutcome": "passed",
        },
    ]
    assert doc["attempts"]["firstTry"]["passed"] == 1  # Broken[initless] only
    assert doc["attempts"]["final"]["passed"] == 3
    assert doc["summary"]["failed"] == 1
    result.stdout.fnmatch_lines(
        [
            "Needed a rerun: 3",
            "  ?initless? Flaky: 2 attempts, flaky: error first, passed at last (*)",
            "  ?legacy? Broken: 3 attempts, failed on the first and the last (*)",
            "  ?legacy? Flaky: 2 attempts, flaky: failed first, passed at last (*)",
        ]
    )
    page = (suite.path / "reports" / "conformance-fake.html").read_text()
    assert "Flaky [legacy]: failed then passed (2 attempts)" in page


@pytest.mark.slow
def test_xdist_prepares_the_run_once(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_finalizer=FINALIZER, test_observing=OBSERVING.replace("65", "0")
    )
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest_subprocess(
        *wpc_args("-n", "2", "--wpc-report", str(report))
    )
    result.assert_outcomes(passed=4)
    assert (suite.path / "prepared.log").read_text().count("prepared") == 1
    doc = yaml.safe_load(report.read_text())
    assert doc["layoutDivergences"]["compared"] == 1
    assert {c["id"] for c in doc["coverage"]["covered"]} == {
        "WPC-POD-001",
        "WPC-FINALIZER-001",
    }
