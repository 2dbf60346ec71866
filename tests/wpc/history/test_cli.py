"""We test the `history` verb's command line (no cluster, no build):

- `history` and `history list` list the fixes as before; `wpc history` is the
  same verb;
- `history run` without --source (and without WPC_ARGO_SOURCE) names both and
  exits 10; an unknown --entry is named with exit 10;
- `--plan` reads only git and the build cache: it prints the substitutions, the
  tags to build and the exact commands, writes nothing and exits 0;
- a run with a fake suite writes the HistoryResult and the table under
  --output-dir, prints the score and the wall time, and exits 0 when every fix
  is caught.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from conformance.exitcodes import ExitCode
from conformance.report.scores import historical
from tests.wpc.diff.builders import chaos_report
from tests.wpc.history.builders import SIGTERM
from tests.wpc.history.builders import GitRepo
from tests.wpc.history.builders import document_of
from tests.wpc.history.builders import fix
from tests.wpc.history.builders import scenario_report
from wpc import cli as wpc_cli
from wpc import suite_cli as conformance_cli
from wpc.history import cli as history_cli
from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.running import Run


def test_history_without_an_action_still_lists(capsys):
    assert conformance_cli.main(["history"]) == 0
    listed = capsys.readouterr().out
    assert "controller-ignores-sigterm" in listed
    assert conformance_cli.main(["history", "list"]) == 0
    assert capsys.readouterr().out == listed
    assert wpc_cli.main(["history"]) == 0
    assert capsys.readouterr().out == listed


def test_run_without_a_source_names_the_option_and_the_variable(monkeypatch, capsys):
    monkeypatch.delenv("WPC_ARGO_SOURCE", raising=False)
    assert conformance_cli.main(["history", "run", "--plan"]) == ExitCode.INVALID_INPUT
    err = capsys.readouterr().err
    assert "history run: give --source" in err
    assert "WPC_ARGO_SOURCE" in err


def test_an_unknown_entry_is_named(tmp_path: Path, capsys):
    code = conformance_cli.main(
        [
            "history",
            "run",
            "--source",
            str(tmp_path),
            "--entry",
            "no-such-fix",
            "--plan",
        ]
    )
    assert code == ExitCode.INVALID_INPUT
    assert (
        "--entry no-such-fix: no such entry in the history" in capsys.readouterr().err
    )


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """A tiny upstream repository, a history file of one fix in it, and a cache
    where v1.2.0 (which has the fix) is built and v1.0.0 / v1.1.0 are not."""
    git = GitRepo(tmp_path / "argo")
    git.commit("base", tag="v1.0.0")
    commit = git.commit("fix: the bug", tag="v1.1.0")
    built = git.commit("later", tag="v1.2.0")
    cache = tmp_path / "cache"
    stamp = cache / "components" / f"argo-workflows-{built[:12]}"
    stamp.mkdir(parents=True)
    (stamp / ".complete").write_text(built[:12] + "\n")
    monkeypatch.setenv("WPC_CACHE_DIR", str(cache))
    path = tmp_path / "history.yaml"
    path.write_text(
        yaml.safe_dump(
            document_of(fix("sigterm", commit=commit, before="v1.0.0", after="v1.1.0"))
        )
    )
    return git.path, path


def test_plan_prints_swaps_builds_and_commands_and_writes_nothing(
    upstream: tuple[Path, Path], tmp_path: Path, capsys
):
    source, history_file = upstream
    out = tmp_path / "out"
    argv = ["history", "--file", str(history_file), "run", "--source", str(source)]
    argv += ["--substitute-built", "--plan", "--output-dir", str(out)]
    assert conformance_cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "sigterm after: v1.1.0 -> v1.2.0 (1 commits apart)" in text
    assert "tags (2 runs, 1 to build first" in text
    assert "v1.0.0 (" in text
    assert ", to build): sigterm" in text
    assert "--profile-var ref=v1.2.0" in text
    assert "--profile-var instance_prefix=wpc-q-v1-2-0" in text
    assert (
        "-k test_a_gracefully_deleted_controller_pod_is_gone_within_the_bound" in text
    )
    assert not out.exists()


class FakeSuite:
    """Stands in for SuiteRunner: the scenario fails on v1.0.0 and passes elsewhere."""

    def __init__(self, **_: object) -> None:
        self.runs: list[Run] = []

    def command(self, run: Run) -> list[str]:
        return ["fake-suite", run.build.ref]

    def __call__(self, run: Run) -> Path:
        self.runs.append(run)
        outcome = "failed" if run.build.ref == "v1.0.0" else "passed"
        return scenario_report(
            run.report,
            SIGTERM,
            {"legacy": outcome, "initless": outcome},
            message="E   AssertionError: WPC-RECOVERY-011: gone 31.2 s after a graceful deletion",
        )


def test_a_run_writes_the_result_and_the_table(
    upstream: tuple[Path, Path], tmp_path: Path, monkeypatch, capsys
):
    monkeypatch.setattr(history_cli.running, "SuiteRunner", FakeSuite)
    source, history_file = upstream
    out = tmp_path / "out"
    argv = ["history", "run", "--file", str(history_file), "--source", str(source)]
    argv += ["--output-dir", str(out)]
    assert conformance_cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "fake-suite v1.0.0" in text  # the plan comes first
    assert "historical mutation score: 1/1 (1.000)" in text
    assert "wall time: " in text
    assert (out / "history-result.txt").read_text() in text
    result = historical.load(out / "history-result.yaml")
    assert result["entries"][0]["verdict"] == "caught"
    assert result["entries"][0]["evidence"] == (
        "AssertionError: WPC-RECOVERY-011: gone 31.2 s after a graceful deletion"
    )
    assert result["history"]["file"] == str(history_file)
    assert [t["tag"] for t in result["tags"]] == ["v1.0.0", "v1.1.0"]


def test_keep_reports_runs_only_the_tags_without_a_report(
    upstream: tuple[Path, Path], tmp_path: Path, monkeypatch, capsys
):
    """A second run with --keep-reports reads v1.0.0's report and runs only v1.1.0.

    Failed before: no such option (a stopped run cost every tag again).
    """
    suites: list[FakeSuite] = []

    def suite(**kwargs: object) -> FakeSuite:
        suites.append(FakeSuite(**kwargs))
        return suites[-1]

    monkeypatch.setattr(history_cli.running, "SuiteRunner", suite)
    source, history_file = upstream
    out = tmp_path / "out"
    argv = ["history", "run", "--file", str(history_file), "--source", str(source)]
    argv += ["--output-dir", str(out)]
    assert conformance_cli.main(argv) == 0
    (out / "v1.1.0" / "conformance.yaml").unlink()
    assert conformance_cli.main([*argv, "--keep-reports"]) == 0
    assert [r.build.ref for r in suites[-1].runs] == ["v1.1.0"]
    assert "historical mutation score: 1/1 (1.000)" in capsys.readouterr().out


@pytest.fixture
def upstream_with_experiment(upstream: tuple[Path, Path]) -> tuple[Path, Path]:
    """The same repository; its one fix also named by a chaos experiment."""
    source, path = upstream
    document = yaml.safe_load(path.read_text())
    document["entries"][0]["experiment"] = {
        "name": "controller-down-across-completion-with-finalizer",
        "why": "the old controller keeps the lease",
    }
    path.write_text(yaml.safe_dump(document))
    return source, path


def test_plan_prints_the_chaos_run_of_a_fix_named_by_an_experiment(
    upstream_with_experiment: tuple[Path, Path], tmp_path: Path, capsys
):
    source, history_file = upstream_with_experiment
    out = tmp_path / "out"
    argv = ["history", "--file", str(history_file), "run", "--source", str(source)]
    argv += ["--plan", "--output-dir", str(out)]
    assert conformance_cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "+ chaos controller-down-across-completion-with-finalizer" in text
    assert (
        "WPC_CHAOS_PROFILE_VARS=build=v1.0.0,instance_prefix=wpc-q-v1-0-0,ref=v1.0.0,"
        f"source={source}"
    ) in text
    assert (
        f"-m chaos run --layout both --reports {out / 'v1.0.0' / 'chaos'} -- -k "
        "controller-down-across-completion-with-finalizer"
    ) in text
    assert not out.exists()


class FakeChaos:
    """Stands in for ChaosSuiteRunner: the experiment fails on v1.0.0 only."""

    runs: ClassVar[list[ChaosRun]] = []

    def __init__(self, **_: object) -> None:
        pass

    def environment(self, run: object) -> dict[str, str]:
        return {"WPC_CHAOS_IMPLEMENTATION": "argo-workflows"}

    def commands(self, run: object) -> list[list[str]]:
        return [["fake-up"], ["fake-chaos"]]

    def __call__(self, run: ChaosRun) -> Path:
        FakeChaos.runs.append(run)
        outcome = "failed" if run.build.ref == "v1.0.0" else "passed"
        name = "controller-down-across-completion-with-finalizer"
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        path = run.reports_dir / "chaos-argo-workflows.yaml"
        path.write_text(
            yaml.safe_dump(
                chaos_report({(name, "legacy"): outcome, (name, "initless"): outcome})
            )
        )
        return path


def test_a_run_judges_the_experiment_beside_the_scenario(
    upstream_with_experiment: tuple[Path, Path], tmp_path: Path, monkeypatch, capsys
):
    monkeypatch.setattr(history_cli.running, "SuiteRunner", FakeSuite)
    monkeypatch.setattr(history_cli.chaos_running, "ChaosSuiteRunner", FakeChaos)
    FakeChaos.runs = []
    source, history_file = upstream_with_experiment
    out = tmp_path / "out"
    argv = ["history", "run", "--file", str(history_file), "--source", str(source)]
    argv += ["--output-dir", str(out)]
    assert conformance_cli.main(argv) == 0
    assert len(FakeChaos.runs) == 2
    text = capsys.readouterr().out
    assert "experiment controller-down-across-completion-with-finalizer: caught" in text
    result = historical.load(out / "history-result.yaml")
    (entry,) = result["entries"]
    assert entry["verdict"] == "caught"
    assert entry["experiment"]["verdict"] == "caught"
