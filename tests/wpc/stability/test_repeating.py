"""We test these aspects of `--repeat N` (`wpc run`, `wpc chaos run`), with fake runs:

- `wpc run --repeat 3` runs the ordinary run three times, each with its reports
  under `run-K-of-3/`, compares them and writes
  `stability-conformance-<impl>.yaml`: exit 17 when an item flipped, 0 when
  every run passed alike, a run's own status when an item failed every time;
- a run interrupted (exit 2, its report marked `interrupted`) stops the
  repetition: no later run starts, the runs before it are compared, the
  StabilityReport says `interrupted` and the exit status is 2; Ctrl-C between
  runs likewise writes it and is still handled by the CLI as it always was;
- a run that leaves no report (a cluster that did not come up) stops it too,
  with that run's status, and a stale report from an earlier repetition is
  never taken for a new one;
- a --repeat that is not a whole number of at least 1 exits 10 before any run
  (`wpc run` and `wpc chaos run`), and `--repeat 1` is the single run unchanged;
- `wpc chaos run --repeat 2` gives each run its own reports directory, removes
  a stale ChaosReport there first, and compares the cases; one `--report` for
  several runs is refused with exit 10.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from chaos.lifecycle import judging
from chaos.suite import parallel
from conformance.exitcodes import ExitCode
from conformance.report.runs import documents
from tests.chaos.lifecycle.test_judging import CONTEXT
from tests.chaos.lifecycle.test_judging import _result
from tests.wpc.stability.test_comparing import _interrupted
from tests.wpc.stability.test_comparing import suite_run
from wpc import cli
from wpc import suite_cli
from wpc.run import launching
from wpc.run import preflight

FLIP = "StatusPodDeletion"


def fake_runs(
    monkeypatch: pytest.MonkeyPatch,
    runs: list[Callable[[launching.RunRequest], int]],
) -> list[launching.RunRequest]:
    """`launching.run` replaced by `runs`, one per call; returns the requests seen."""
    seen: list[launching.RunRequest] = []
    monkeypatch.setattr(preflight, "check", lambda values: None)

    def run(request: launching.RunRequest) -> int:
        seen.append(request)
        return runs[len(seen) - 1](request)

    monkeypatch.setattr(launching, "run", run)
    return seen


def writes(
    run: dict[str, Any], status: int = 0
) -> Callable[[launching.RunRequest], int]:
    """A run that writes `run` where the launcher's report goes and exits `status`."""

    def fake(request: launching.RunRequest) -> int:
        path = launching.report_path(request)
        documents.write(run, path)
        return status

    return fake


def repeat(tmp_path: Path, count: str) -> int:
    return suite_cli.main(
        [
            "run",
            "--implementation",
            "reference",
            "--reports-dir",
            str(tmp_path),
            "--repeat",
            count,
        ]
    )


def stability_of(tmp_path: Path) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(
        (tmp_path / "stability-conformance-reference.yaml").read_text()
    )
    return found


def test_three_runs_each_in_its_directory_and_a_flip_exits_17(
    tmp_path: Path, monkeypatch, capsys
):
    failed = suite_run(failing=FLIP, message="pod not deleted")
    seen = fake_runs(
        monkeypatch, [writes(suite_run()), writes(failed, 1), writes(suite_run())]
    )

    assert repeat(tmp_path, "3") == ExitCode.UNSTABLE

    assert [r.reports_dir for r in seen] == [
        tmp_path / f"run-{k}-of-3" for k in (1, 2, 3)
    ]
    found = stability_of(tmp_path)
    assert [r["exitCode"] for r in found["runs"]] == [0, 1, 0]
    assert found["runs"][1]["report"] == str(
        tmp_path / "run-2-of-3" / "conformance-reference.yaml"
    )
    assert [f["id"] for f in found["flips"]] == [f"{FLIP}[legacy]"]
    assert found["interrupted"] is None
    assert f"{FLIP}[legacy]" in capsys.readouterr().out


def test_runs_that_agree_exit_0_and_a_steady_failure_with_the_runs_status(
    tmp_path: Path, monkeypatch
):
    fake_runs(monkeypatch, [writes(suite_run())] * 2)
    assert repeat(tmp_path / "a", "2") == 0
    assert stability_of(tmp_path / "a")["summary"]["flipped"] == 0

    failed = suite_run(failing=FLIP, message="no")
    fake_runs(monkeypatch, [writes(failed, 1)] * 2)
    assert repeat(tmp_path / "b", "2") == 1
    assert stability_of(tmp_path / "b")["summary"]["failedEveryRun"] == 1


def test_an_interrupted_run_stops_the_repetition_and_marks_the_report(
    tmp_path: Path, monkeypatch, capsys
):
    cut = suite_run()
    _interrupted(cut)
    seen = fake_runs(
        monkeypatch,
        [writes(suite_run()), writes(cut, 2), lambda r: pytest.fail("run 3 started")],
    )

    assert repeat(tmp_path, "3") == pytest.ExitCode.INTERRUPTED

    assert len(seen) == 2
    found = stability_of(tmp_path)
    assert found["interrupted"] == {"run": 2, "reason": "SIGTERM"}
    assert [r["compared"] for r in found["runs"]] == [True, False]
    assert found["summary"]["compared"] == 1
    assert "interrupted in run 2 (exit 2): SIGTERM" in capsys.readouterr().out


def test_ctrl_c_between_runs_writes_the_report_and_is_handled_as_before(
    tmp_path: Path, monkeypatch, capsys
):
    def ctrl_c(request: launching.RunRequest) -> int:
        raise KeyboardInterrupt

    fake_runs(monkeypatch, [writes(suite_run()), ctrl_c])

    assert repeat(tmp_path, "3") == pytest.ExitCode.INTERRUPTED

    assert "interrupted (Ctrl-C)" in capsys.readouterr().err
    found = stability_of(tmp_path)
    assert found["interrupted"] == {"run": 2, "reason": "KeyboardInterrupt"}
    assert found["summary"]["compared"] == 1


def test_a_run_that_leaves_no_report_stops_it_with_its_status(
    tmp_path: Path, monkeypatch
):
    stale = tmp_path / "run-2-of-3" / "conformance-reference.yaml"
    documents.write(suite_run(), stale)
    os.utime(stale, (1, 1))
    fake_runs(
        monkeypatch,
        [writes(suite_run()), lambda r: 0, lambda r: pytest.fail("run 3 started")],
    )

    assert repeat(tmp_path, "3") == ExitCode.PREPARE_FAILED
    assert stability_of(tmp_path)["stopped"] == {
        "run": 2,
        "exitCode": int(ExitCode.PREPARE_FAILED),
        "reason": f"the run wrote no report at {stale}",
    }

    fake_runs(monkeypatch, [lambda r: int(ExitCode.CLUSTER_FAILED)])
    assert repeat(tmp_path / "b", "2") == ExitCode.CLUSTER_FAILED
    assert stability_of(tmp_path / "b")["stopped"]["run"] == 1


@pytest.mark.parametrize("count", ["0", "-1", "three", "2.5", ""])
def test_a_bad_repeat_exits_10_before_any_run(
    tmp_path: Path, monkeypatch, capsys, count
):
    fake_runs(monkeypatch, [lambda r: pytest.fail("a run started")])

    assert repeat(tmp_path, count) == ExitCode.INVALID_INPUT

    assert (
        f"--repeat: expected a whole number of runs, 1 or more; got {count!r}"
        in capsys.readouterr().err
    )
    assert not list(tmp_path.iterdir())


def test_repeat_1_is_the_single_run(tmp_path: Path, monkeypatch):
    seen = fake_runs(monkeypatch, [writes(suite_run())])

    assert repeat(tmp_path, "1") == 0

    assert seen[0].reports_dir == tmp_path
    assert not (tmp_path / "stability-conformance-reference.yaml").exists()


def chaos_runs(monkeypatch: pytest.MonkeyPatch, outcomes: list[str]) -> list[Path]:
    """`wpc chaos run`'s phases replaced: run K writes case e[initless] as outcomes[K]."""
    seen: list[Path] = []

    def run_phases(phases: Any, reports: Path, extra: Any) -> list[int]:
        if reports not in seen:
            seen.append(reports)
            path = judging.report_path(reports, "reference")
            outcome = outcomes[len(seen) - 1]
            judging.add_to_report(path, CONTEXT, _result(outcome, layout="initless"))
        return [0]

    monkeypatch.setattr(parallel, "run_phases", run_phases)
    monkeypatch.delenv("WPC_CHAOS_IMPLEMENTATION", raising=False)
    return seen


def test_chaos_runs_each_in_its_directory_and_their_cases_are_compared(
    tmp_path: Path, monkeypatch, capsys
):
    stale = judging.report_path(tmp_path / "run-2-of-2", "reference")
    judging.add_to_report(stale, CONTEXT, _result("passed", layout="legacy"))
    seen = chaos_runs(monkeypatch, ["passed", "failed"])

    argv = ["chaos", "run", "--reports", str(tmp_path), "--repeat", "2"]
    assert cli.main(argv) == ExitCode.UNSTABLE

    assert seen == [tmp_path / "run-1-of-2", tmp_path / "run-2-of-2"]
    found = yaml.safe_load((tmp_path / "stability-chaos-reference.yaml").read_text())
    assert found["subject"] == "ChaosReport"
    # The stale e[legacy] of an earlier repetition is gone, not a case of run 2.
    assert [i["id"] for i in found["items"]] == ["e[initless]"]
    assert found["flips"][0]["outcomes"] == ["passed", "failed"]
    assert "e[initless]" in capsys.readouterr().out


def test_chaos_refuses_a_bad_repeat_before_any_run(tmp_path: Path, monkeypatch, capsys):
    seen = chaos_runs(monkeypatch, [])

    argv = ["chaos", "run", "--reports", str(tmp_path), "--repeat", "none"]
    assert cli.main(argv) == ExitCode.INVALID_INPUT

    assert "wpc chaos run: --repeat: expected a whole number" in capsys.readouterr().err
    assert seen == []


def test_chaos_refuses_one_report_path_for_several_runs(
    tmp_path: Path, monkeypatch, capsys
):
    seen = chaos_runs(monkeypatch, [])
    report = str(tmp_path / "chaos.yaml")

    argv = ["chaos", "run", "--repeat", "2", "--report", report]
    assert cli.main(argv) == ExitCode.INVALID_INPUT

    assert "--report names one report" in capsys.readouterr().err
    assert seen == []


def test_chaos_repeat_names_the_report_once_for_every_run(tmp_path: Path, monkeypatch):
    # Failed before: 7 calls for 2 runs, each loading the profile for its name
    # (the base, then per run its unlink, the freshness check and the summary).
    chaos_runs(monkeypatch, ["passed", "passed"])
    real = parallel.report_of
    named: list[Path] = []

    def counting(reports: Path, environ: Any) -> Path:
        named.append(reports)
        return real(reports, environ)

    monkeypatch.setattr(parallel, "report_of", counting)

    argv = ["chaos", "run", "--reports", str(tmp_path), "--repeat", "2"]
    assert cli.main(argv) == 0

    assert named == [tmp_path]
    found = yaml.safe_load((tmp_path / "stability-chaos-reference.yaml").read_text())
    assert [r["report"] for r in found["runs"]] == [
        str(tmp_path / f"run-{k}-of-2" / "chaos-reference.yaml") for k in (1, 2)
    ]
