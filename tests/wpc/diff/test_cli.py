"""We test these aspects of `python -m conformance diff` and `wpc diff`:

- on the two committed fixture reports (the real v4.1.2 report cut down, then
  hand-edited) the table and the YAML name the regression, the fix, the added
  and removed items and clauses, the claims, the rerun, the first try and the
  timing, and the exit code is REGRESSION;
- a report compared with itself exits 0;
- a file that is not a report exits INVALID_INPUT naming the file and key;
- `wpc diff` hands its arguments to the same verb;
- REGRESSION is distinct from pytest's codes and WPC's others, and the README's
  exit-code table lists it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.exitcodes import ExitCode
from wpc import cli as wpc_cli
from wpc import suite_cli as conformance_cli

FIXTURES = Path(__file__).parent / "fixtures"
OLD = FIXTURES / "old.yaml"
NEW = FIXTURES / "new.yaml"
README = Path(__file__).parents[3] / "README.md"
INPUT = "test_initless_input_artifacts.py"
DELETION = "test_status_pod_deletion.py"


def test_the_fixture_reports_regress(tmp_path, capsys):
    out_file = tmp_path / "diff.yaml"
    code = conformance_cli.main(["diff", str(OLD), str(NEW), "--output", str(out_file)])
    assert code == ExitCode.REGRESSION
    out = capsys.readouterr().out
    assert "items: 1 regressions, 1 fixes, 0 other changes, 1 added, 1 removed" in out
    assert "clauses: 3 regressions, 2 fixes, 0 other changes, 1 added, 1 removed" in out
    assert "features claimed ARTIFACT_PLUGINS; unclaimed LEADER_ELECTION" in out
    assert "verdict: REGRESSED" in out
    diff = yaml.safe_load(out_file.read_text())
    assert diff["kind"] == "ConformanceReportDiff"
    assert diff["regressed"] is True
    [regression] = diff["items"]["regressions"]
    assert INPUT in regression["nodeid"]
    assert (regression["layout"], regression["old"], regression["new"]) == (
        "initless",
        "passed",
        "failed",
    )
    assert regression["rerun"] == "not rerun"
    [fix] = diff["items"]["fixes"]
    assert DELETION in fix["nodeid"]
    assert fix["rerun"] == "not rerun"
    assert [i["shortName"] for i in diff["items"]["added"]] == ["ResultCleanup"]
    assert [i["shortName"] for i in diff["items"]["removed"]] == [
        "InitlessArtifactPlugins"
    ]
    assert [c["clause"] for c in diff["clauses"]["regressions"]] == [
        "WPC-INITLESS-008",
        "WPC-INITLESS-009",
        "WPC-INITLESS-010",
    ]
    assert diff["clauses"]["added"] == ["WPC-RESULT-007"]
    assert diff["clauses"]["removed"] == ["WPC-INITLESS-011"]
    [first] = diff["firstTry"]
    assert "test_status_retries.py" in first["nodeid"]
    assert first["new"] == {
        "outcome": "passed",
        "firstOutcome": "failed",
        "attempts": 2,
    }
    assert diff["timings"]["phases"].startswith("not recorded")
    moved = {
        t["nodeid"].split("::")[0]: t["ratio"] for t in diff["timings"]["durations"]
    }
    assert moved["conformance/tests/test_kill_sidecars.py"] == pytest.approx(
        2.268, abs=1e-3
    )


def test_a_report_compared_with_itself_exits_zero(capsys):
    assert conformance_cli.main(["diff", str(OLD), str(OLD)]) == 0
    assert "verdict: no regression" in capsys.readouterr().out


def test_the_timing_ratio_option_is_used(capsys):
    conformance_cli.main(["diff", str(OLD), str(NEW)])
    assert ": 2 moved;" in capsys.readouterr().out
    conformance_cli.main(["diff", str(OLD), str(NEW), "--timing-ratio", "6"])
    assert ": 0 moved;" in capsys.readouterr().out


def test_a_file_that_is_not_a_report_is_invalid_input(tmp_path, capsys):
    bench = tmp_path / "bench.yaml"
    bench.write_text("apiVersion: wpc.dev/v1alpha1\nkind: BenchResult\n")
    assert (
        conformance_cli.main(["diff", str(OLD), str(bench)]) == ExitCode.INVALID_INPUT
    )
    err = capsys.readouterr().err
    assert f"{bench}: key kind: expected 'ConformanceReport', got 'BenchResult'" in err
    missing = tmp_path / "missing.yaml"
    assert (
        conformance_cli.main(["diff", str(missing), str(OLD)]) == ExitCode.INVALID_INPUT
    )
    assert f"{missing}: cannot read the report" in capsys.readouterr().err


def test_wpc_diff_delegates_to_the_same_verb(capsys):
    assert wpc_cli.main(["diff", str(OLD), str(NEW)]) == ExitCode.REGRESSION
    assert "verdict: REGRESSED" in capsys.readouterr().out
    args = wpc_cli.parse(["diff", str(OLD), str(NEW), "--timing-ratio", "2"])
    assert (args.verb, args.timing_ratio) == ("diff", 2.0)


def test_the_regression_code_is_distinct_and_documented():
    others = {int(c) for c in ExitCode if c is not ExitCode.REGRESSION}
    assert int(ExitCode.REGRESSION) not in others | set(range(6))
    assert f"| {int(ExitCode.REGRESSION)} | `wpc diff`" in README.read_text()


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["diff", "a", "b", "--timing-ratio", "x"], "not a number: 'x'"),
        (["diff", "a", "b", "--timing-ratio", "1"], "must be above 1"),
        (["diff", "a", "b", "--min-seconds", "-1"], "must be zero or more"),
        (["diff", "a", "b", "--min-seconds", "s"], "not a number: 's'"),
        (["qualify", "--reruns", "two"], "not a whole number: 'two'"),
        (["qualify", "--reruns", "-1"], "must be 0 or more"),
    ],
)
def test_a_bad_number_is_refused_with_what_was_wrong(argv, error, capsys):
    with pytest.raises(SystemExit) as caught:
        conformance_cli.parser().parse_args(argv)
    assert caught.value.code == 2
    assert error in capsys.readouterr().err
