"""We test chaos in a qualification with fake runners (no cluster):

- with chaos, the whole chaos suite runs against OLD then NEW (`chaos-old`,
  `chaos-new`) after the suite, and each differing chaos case (experiment,
  layout) is rerun by the same loop as the suite's items, in the same round and
  side, one chaos run per layout selecting its experiments by `-k`
  (`chaos-rerun-<round>-<side>-<layout>`): a case that reproduces is confirmed,
  one that flips is flaky with each report;
- a case not applicable on a side is listed with its reason in the YAML and the
  table, never rerun, never counted;
- diff.yaml has the chaos section with the verdict's counts (confirmed, flaky,
  explained), diff.txt its table and the verdict line its count;
- the verb: `--with-chaos` runs the chaos suite and exits 14 for a confirmed
  chaos regression, 0 when an `experiment` entry explains it; without the flag
  no chaos runs; `--with-chaos --without-chaos` is refused;
- `--rediff` rebuilds the chaos half from the directories a qualification left;
- the real chaos runner: `python -m clusters up`, then `python -m chaos run` with
  the build's variables in WPC_CHAOS_PROFILE_VARS and the selection after `--`;
  its report is named after the profile, and a run that leaves none is a
  CommandError naming it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.errors import CommandError
from conformance.exitcodes import ExitCode
from conformance.implementations import profiles
from tests.wpc.diff.builders import chaos_report
from tests.wpc.diff.builders import entry
from tests.wpc.diff.builders import report
from tests.wpc.qualify.test_explained import qualify_args
from wpc import suite_cli as conformance_cli
from wpc.qualify import builds
from wpc.qualify import chaos_running
from wpc.qualify import cli as qualify_cli
from wpc.qualify import qualifying
from wpc.qualify import running
from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.running import Run

POD = "pod-deleted-while-main-runs"
SUSPEND = "controller-restarted-while-suspended"
WAIT = "wait-killed-while-main-runs"
OOM = "main-oom-killed"


class SuiteRunner:
    """Every item passes everywhere, except Sigterm: failed on OLD, passed on NEW."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def __call__(self, run: Run) -> Path:
        self.log.append(f"suite {run.reports_dir.name} {run.keywords}".strip())
        layouts = ("legacy", "initless") if run.layout == "both" else (run.layout,)
        outcome = "failed" if run.build.side == "old" else "passed"
        tests = [entry("Sigterm", layout, outcome) for layout in layouts]
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        run.report.write_text(yaml.safe_dump(report(tests)))
        return run.report


class ChaosRunner:
    """POD regresses on NEW every time; SUSPEND fails on NEW's first run only (flaky);
    WAIT is not applicable on OLD; OOM passes everywhere."""

    def __init__(self, log: list[str], *, pod_regresses: bool = True) -> None:
        self.log = log
        self.runs: list[ChaosRun] = []
        self.pod_regresses = pod_regresses

    def __call__(self, run: ChaosRun) -> Path:
        self.runs.append(run)
        self.log.append(f"chaos {run.reports_dir.name} {run.keywords}".strip())
        new = run.build.side == "new"
        first_new = new and not run.keywords
        cases = {
            (POD, "legacy"): "failed" if new and self.pod_regresses else "passed",
            (POD, "initless"): "passed",
            (SUSPEND, "legacy"): "failed" if first_new else "passed",
            (WAIT, "legacy"): "passed" if new else "not-applicable",
            (OOM, "initless"): "passed",
        }
        layouts = ("legacy", "initless") if run.layout == "both" else (run.layout,)
        kept = {
            (name, layout): outcome
            for (name, layout), outcome in cases.items()
            if layout in layouts and (not run.keywords or name in run.keywords)
        }
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        path = run.reports_dir / "chaos-argo-workflows.yaml"
        path.write_text(yaml.safe_dump(chaos_report(kept)))
        return path


def plan(tmp_path: Path, rounds: int = 2) -> qualifying.Plan:
    old, new = builds.plan("v4.1.0", "v4.1.2", "/src")
    return qualifying.Plan(
        old=old, new=new, out_dir=tmp_path / "q", rounds=rounds, chaos=True
    )


def test_chaos_cases_are_run_diffed_and_rerun_in_the_suite_s_rerun_loop(tmp_path):
    log: list[str] = []
    outcome = qualifying.qualify(plan(tmp_path), SuiteRunner(log), ChaosRunner(log))

    rerun = (
        "suite rerun-{r}-{s}-both "
        "(test_sigterm and [initless]) or (test_sigterm and [legacy])"
    )
    expected = [
        "suite old",
        "suite new",
        "chaos chaos-old",
        "chaos chaos-new",
    ]
    for round_ in (1, 2):
        for side in ("old", "new"):
            expected += [
                rerun.format(r=round_, s=side),
                f"chaos chaos-rerun-{round_}-{side}-legacy {SUSPEND} or {POD}",
            ]
    assert log == expected

    chaos = outcome.diff.chaos
    assert chaos is not None
    status = {
        (c.new.short_name, c.new.layout, c.kind): c.rerun.status for c in chaos.cases
    }
    assert status == {
        (POD, "legacy", "regression"): "confirmed",
        (SUSPEND, "legacy", "regression"): "flaky",
    }
    pod = next(c for c in chaos.cases if c.new.short_name == POD)
    assert pod.rerun.outcomes("new") == ["failed", "failed"]
    assert {r.report for r in pod.rerun.records} == {
        str(
            tmp_path
            / "q"
            / f"chaos-rerun-{i}-{side}-legacy"
            / "chaos-argo-workflows.yaml"
        )
        for i in (1, 2)
        for side in ("old", "new")
    }
    assert [(n.name, n.old, n.new) for n in chaos.not_applicable] == [
        (WAIT, "not-applicable", "passed")
    ]
    assert outcome.diff.regressed

    document = yaml.safe_load(outcome.yaml_path.read_text())
    assert document["regressed"] is True
    assert document["chaos"]["summary"] | {} == {
        "differences": 2,
        "regressions": 2,
        "fixes": 0,
        "otherChanges": 0,
        "confirmed": 1,
        "flaky": 1,
        "notRerun": 0,
        "explained": 0,
        "added": 0,
        "removed": 0,
        "notApplicable": 1,
    }
    suspend, regression = document["chaos"]["cases"]["regressions"]
    assert (suspend["experiment"], suspend["rerun"]) == (SUSPEND, "flaky")
    assert (regression["experiment"], regression["rerun"]) == (POD, "confirmed")
    assert len(regression["reruns"]) == 4
    assert document["chaos"]["notApplicable"][0]["reason"] == (
        "the provider cannot signal a container"
    )
    table = outcome.table_path.read_text()
    assert (
        "chaos cases: 2 differences (2 regressions, 0 fixes, 0 other changes): "
        in table
    )
    assert "1 confirmed, 1 flaky, 0 not rerun; 0 explained; 1 not applicable" in table
    assert f"not applicable: {WAIT} [legacy] (old not-applicable, new passed)" in table
    assert "confirmed (old passed, passed, passed; new failed, failed, failed)" in table
    assert "chaos: 2 case regressions, 1 flaky and 0 explained not counted" in table


def test_without_a_chaos_difference_only_the_suite_is_rerun(tmp_path):
    log: list[str] = []
    chaos = ChaosRunner(log, pod_regresses=False)

    def steady(run: ChaosRun) -> Path:
        path = chaos(run)
        document = yaml.safe_load(path.read_text())
        document = chaos_report(
            {
                (e["name"], e["layout"]): "passed"
                for e in document["experiments"]
                if e["outcome"] != "not-applicable"
            }
        )
        path.write_text(yaml.safe_dump(document))
        return path

    outcome = qualifying.qualify(plan(tmp_path, rounds=1), SuiteRunner(log), steady)
    assert not any(line.startswith("chaos chaos-rerun") for line in log)
    assert outcome.diff.chaos is not None
    assert outcome.diff.chaos.cases == []
    assert not outcome.diff.regressed


def test_a_plan_with_chaos_needs_a_chaos_runner(tmp_path):
    with pytest.raises(ValueError, match="needs a chaos runner"):
        qualifying.qualify(plan(tmp_path), SuiteRunner([]))


def explained_pod(tmp_path: Path) -> Path:
    path = tmp_path / "explained.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "wpc.dev/v1alpha1",
                "kind": "ExplainedDifferences",
                "explanations": [
                    {
                        "old": "v4.1.0",
                        "new": "v4.1.2",
                        "experiment": POD,
                        "layouts": ["legacy"],
                        "kind": "regression",
                        "explanation": "Upstream's main exits 0 on SIGTERM.",
                        "evidence": ["docs/known-deviations.md"],
                    }
                ],
            }
        )
    )
    return path


@pytest.mark.parametrize(
    ("extra", "code", "chaos_runs"),
    [
        ((), 0, 0),
        (("--with-chaos",), int(ExitCode.REGRESSION), 4),
        (("--with-chaos", "--explained", "EXPLAINED"), 0, 4),
        (("--with-chaos", "--reruns", "0"), int(ExitCode.REGRESSION), 2),
    ],
)
def test_the_verb_runs_chaos_only_when_asked_and_counts_it_in_its_exit_code(
    tmp_path, monkeypatch, capsys, extra, code, chaos_runs
):
    log: list[str] = []
    chaos = ChaosRunner(log)
    monkeypatch.setattr(
        qualify_cli.running, "SuiteRunner", lambda **kwargs: SuiteRunner(log)
    )
    monkeypatch.setattr(
        qualify_cli.chaos_running, "ChaosSuiteRunner", lambda **kwargs: chaos
    )
    extra = tuple(
        str(explained_pod(tmp_path)) if a == "EXPLAINED" else a for a in extra
    )
    explained = () if "--explained" in extra else ("--no-explained",)
    args = conformance_cli.parser().parse_args(
        qualify_args(tmp_path, *explained, *extra)
    )
    assert qualify_cli.main(args) == code
    assert len(chaos.runs) == chaos_runs
    out = capsys.readouterr().out
    assert ("chaos cases:" in out) is bool(chaos_runs)
    if "--explained" in extra:
        assert "regression (explained)  legacy  pod-deleted-while-main-runs" in out


def test_with_and_without_chaos_together_are_refused(capsys):
    with pytest.raises(SystemExit) as exited:
        conformance_cli.main(
            ["qualify", "--old", "v1", "--new", "v2", "--with-chaos", "--without-chaos"]
        )
    assert exited.value.code == 2  # argparse's own, as for every bad command line
    assert "not allowed with argument --with-chaos" in capsys.readouterr().err


def test_a_rediff_rebuilds_the_chaos_half_from_the_directories(tmp_path):
    log: list[str] = []
    ran = qualifying.qualify(plan(tmp_path), SuiteRunner(log), ChaosRunner(log))
    again = qualifying.rediff(tmp_path / "q", explained=None)
    assert again.diff.chaos is not None
    assert ran.diff.chaos is not None
    assert [(c.new.key, c.rerun) for c in again.diff.chaos.cases] == [
        (c.new.key, c.rerun) for c in ran.diff.chaos.cases
    ]
    assert again.yaml_path.read_text() == ran.yaml_path.read_text()
    (tmp_path / "q" / "chaos-new" / "chaos-argo-workflows.yaml").unlink()
    with pytest.raises(Exception, match=r"chaos reports on one side only"):
        qualifying.rediff(tmp_path / "q", explained=None)


def test_the_chaos_suite_runner_commands_and_environment(tmp_path):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    runner = chaos_running.ChaosSuiteRunner(
        implementation="argo-workflows", provider="local", cluster="c", python="py"
    )
    run = ChaosRun(
        build=old, layout="legacy", reports_dir=tmp_path / "r", keywords="a or b"
    )
    assert runner.commands(run) == [
        ["py", "-m", "clusters", "up", "--provider", "local", "--name", "c"],
        ["py", "-m", "chaos", "run", "--layout", "legacy", "--reports",
         str(tmp_path / "r"), "--", "-k", "a or b"],
    ]  # fmt: skip
    assert runner.environment(run) == {
        "WPC_CHAOS_IMPLEMENTATION": "argo-workflows",
        "WPC_CHAOS_PROFILE_VARS": (
            "build=v4.1.0,instance_prefix=wpc-q-v4-1-0,ref=v4.1.0,source=/src"
        ),
        "WPC_CHAOS_PROVIDER": "local",
        "WPC_CHAOS_CLUSTER": "c",
    }
    assert runner.report(run) == tmp_path / "r" / "chaos-argo-workflows.yaml"


def test_a_chaos_run_without_a_report_is_an_error_and_an_old_report_never_counts(
    tmp_path, monkeypatch
):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    run = ChaosRun(build=old, layout="both", reports_dir=tmp_path / "r")
    run.reports_dir.mkdir()
    stale = run.reports_dir / "chaos-argo-workflows.yaml"
    stale.write_text("stale")
    calls: list[tuple[list[str], object]] = []

    def call(command: list[str], *, env: object = None) -> int:
        calls.append((command, env))
        return 0 if "clusters" in command else 1

    monkeypatch.setattr(running, "_call", call)
    runner = chaos_running.ChaosSuiteRunner(implementation="argo-workflows")
    with pytest.raises(CommandError, match=r"left no report at .*chaos-argo-workflows"):
        runner(run)
    assert not stale.exists()
    assert len(calls) == 2
    env = calls[1][1]
    assert isinstance(env, dict)
    assert env["WPC_CHAOS_PROFILE_VARS"].startswith("build=v4.1.0,")


def test_a_cluster_that_does_not_come_up_stops_the_chaos_run(tmp_path, monkeypatch):
    old, _new = builds.plan("v4.1.0", "v4.1.2", "/src")
    run = ChaosRun(build=old, layout="both", reports_dir=tmp_path / "r")
    calls: list[list[str]] = []

    def call(command: list[str], *, env: object = None) -> int:
        calls.append(command)
        return 3

    monkeypatch.setattr(running, "_call", call)
    with pytest.raises(CommandError, match="did not come up"):
        chaos_running.ChaosSuiteRunner(implementation="argo-workflows")(run)
    assert len(calls) == 1


def test_the_chaos_suite_runner_loads_the_profile_once_for_its_report_name(
    tmp_path, monkeypatch
):
    # Failed before: 4 loads for two runs (`builds.check_profile` per report path).
    loaded: list[str] = []
    real_load = profiles.load

    def counting_load(name_or_path, **kwargs):
        loaded.append(name_or_path)
        return real_load(name_or_path, **kwargs)

    monkeypatch.setattr(profiles, "load", counting_load)
    old, new = builds.plan("v4.1.0", "v4.1.2", "/src")
    runner = chaos_running.ChaosSuiteRunner(implementation="argo-workflows")
    reports = [
        runner.report(ChaosRun(build=build, layout="both", reports_dir=tmp_path / side))
        for build, side in ((old, "o"), (new, "n"))
    ]
    assert reports == [
        tmp_path / side / "chaos-argo-workflows.yaml" for side in ("o", "n")
    ]
    assert loaded == ["argo-workflows"]
