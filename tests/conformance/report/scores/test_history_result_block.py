"""We test the historical mutation score in the ConformanceReport (no cluster):

- a valid HistoryResult becomes `historicalMutationScore`: caught, in scope,
  the score and how it counts, each fix's verdict, and the WPC commit, date and
  file it was measured in; a missing or invalid file is a DataError naming the
  file and, when invalid, the key;
- end to end with pytester: without --wpc-history-result the slot is null;
  with it the report carries the score and still validates, and the HTML page
  shows it; a bad file stops the run before it is prepared;
- `python -m conformance run` checks the file before anything on the host
  changes, and forwards the option to pytest only when given.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.report.runs import documents
from conformance.report.scores import historical
from conformance.report.scores import provenance
from tests.conformance.conftest import wpc_args
from tests.conformance.conftest import write_yaml
from tests.conformance.plugin.test_plugin_report import FINALIZER
from tests.conformance.plugin.test_plugin_report import run_with_report
from tests.wpc.history.builders import MEASURED
from tests.wpc.history.builders import history_result
from wpc import suite_cli as conformance_cli
from wpc.run import launching
from wpc.run import preflight

HERE = provenance.Provenance.from_json(dict(MEASURED))
"""A run on exactly the code and spec `history_result()` was measured on."""


def test_a_valid_result_fills_the_slot(tmp_path: Path):
    path = write_yaml(tmp_path / "history-result.yaml", history_result())
    assert historical.read(path, current=HERE) == {
        "caught": 1,
        "inScope": 2,
        "score": 0.5,
        "counting": "caught / in scope",
        "verdicts": [
            {"id": "sigterm", "verdict": "caught"},
            {"id": "hidden", "verdict": "unobservable"},
            {"id": "elsewhere", "verdict": "out-of-scope"},
        ],
        "selected": None,
        "implementation": "argo-workflows",
        "suiteCommit": MEASURED["commit"],
        "date": "2026-11-24T16:00:00+00:00",
        "source": str(path),
        "measuredOn": MEASURED,
        "stale": False,
        "staleReason": None,
    }


def test_a_copy_on_other_code_is_stale_and_says_why(tmp_path: Path):
    path = write_yaml(tmp_path / "history-result.yaml", history_result())
    later = provenance.Provenance(
        commit="f" * 40, dirty=False, changes=None, spec_version="1.1"
    )
    score = historical.read(path, current=later)
    assert score["stale"] is True
    assert score["staleReason"] == (
        "measured at commit abc123def456, this run is at commit ffffffffffff; "
        "measured against spec 1.0, this run judges spec 1.1"
    )
    assert historical.describe(score) == (
        "1/2 upstream fixes caught (50.0%); measured 2026-11-24T16:00:00+00:00 on "
        "commit abc123def456 / spec 1.0: STALE (measured at commit abc123def456, this "
        "run is at commit ffffffffffff; measured against spec 1.0, this run judges "
        "spec 1.1)"
    )
    fresh = historical.read(path, current=HERE)
    assert historical.describe(fresh).endswith(
        "on commit abc123def456 / spec 1.0: fresh"
    )


def test_a_missing_or_invalid_file_is_named(tmp_path: Path):
    missing = tmp_path / "nowhere.yaml"
    with pytest.raises(DataError, match=f"^{re.escape(str(missing))}: cannot read"):
        historical.read(missing, current=HERE)
    bad = write_yaml(tmp_path / "bad.yaml", history_result(score={"caught": 1}))
    with pytest.raises(
        DataError,
        match=rf"^{re.escape(str(bad))}: invalid history result .*score: 'inScope' is a "
        "required property",
    ):
        historical.read(bad, current=HERE)


def test_the_report_carries_the_score_only_when_given(suite: pytest.Pytester):
    suite.makepyfile(test_finalizer=FINALIZER)
    _, plain = run_with_report(suite)
    assert plain["historicalMutationScore"] is None
    path = write_yaml(suite.path / "history-result.yaml", history_result())
    result, doc = run_with_report(suite, "--wpc-history-result", str(path))
    result.assert_outcomes(passed=2)
    documents.validate(doc)
    # Measured at a commit this checkout is not at, against spec 1.0, not the
    # fixture spec this run judges: stale, both sides named.
    here = provenance.Provenance(
        commit=doc["suite"]["commit"],
        dirty=False,
        changes=None,
        spec_version=doc["suite"]["specVersion"],
    )
    copied = doc["historicalMutationScore"]
    assert copied["stale"] is True
    assert copied["staleReason"].startswith(
        f"measured at commit abc123def456, this run is at commit {here.commit[:12]}; "
        "measured against spec 1.0, this run judges spec 0.0.1-test"
    )
    assert {k: v for k, v in copied.items() if k != "staleReason"} == {
        k: v
        for k, v in historical.read(path, current=here).items()
        if k != "staleReason"
    }
    page = (suite.path / "reports" / "conformance-fake.html").read_text()
    assert "historical mutation score" in page
    assert (
        "1/2 upstream fixes caught (50.0%); measured 2026-11-24T16:00:00+00:00" in page
    )
    assert "STALE (measured at commit abc123def456" in page


def test_a_bad_file_stops_the_run_before_it_is_prepared(suite: pytest.Pytester):
    suite.makepyfile(test_finalizer=FINALIZER)
    path = write_yaml(suite.path / "history-result.yaml", {"kind": "Nothing"})
    result = suite.runpytest(*wpc_args("--wpc-history-result", str(path)))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*--wpc-history-result: {path}: invalid history result*"]
    )
    assert not (suite.path / "prepared.log").exists()


def test_preflight_checks_the_file(tmp_path: Path):
    path = write_yaml(tmp_path / "bad.yaml", ["not", "a", "result"])
    with pytest.raises(DataError, match=r"--history-result: .*invalid history result"):
        preflight.check(
            {
                "wpc_implementation": "reference",
                "wpc_layout": "both",
                "wpc_kubeconfig": None,
                "wpc_provider": "existing",
                "wpc_history_result": str(path),
            },
            host=preflight.Host(which=lambda tool: f"/usr/bin/{tool}", euid=lambda: 0),
        )


def test_the_option_is_forwarded_only_when_given(monkeypatch):
    seen: list[launching.RunRequest] = []
    monkeypatch.setattr(launching, "run", lambda r: seen.append(r) or 0)
    monkeypatch.setattr(preflight, "check", lambda values: None)
    argv = ["run", "--implementation", "reference"]
    assert conformance_cli.main([*argv, "--history-result", "reports/h.yaml"]) == 0
    assert conformance_cli.main(argv) == 0
    given, absent = (launching.pytest_command(r) for r in seen)
    assert given[given.index("--wpc-history-result") + 1] == "reports/h.yaml"
    assert "--wpc-history-result" not in absent
