"""We test chaos experiments as a history fix's killer (no cluster, fake runners):

- the history file takes an optional `experiment` (name, layouts, why), checked
  by the schema, and `history` refuses one that names no experiment of
  chaos/experiments/ or a layout it does not declare (exit 10, naming the fix);
  the shipped history names one for the SIGTERM fix #15863 and passes the check;
- a fix named only by an experiment runs (it is no longer "no scenario"); a tag
  serving it gets one chaos run selecting its experiments (`<out>/<build>/chaos`)
  and no suite run when none of its fixes names a scenario;
- the experiment is judged from the two tags' ChaosReports as a scenario is:
  failed before and passed after is caught, passed before missed, failed after
  broken-after; not applicable (skipped) or an unverified injection (error)
  proves nothing (not-run); a chaos run that leaves no report is not-run with
  its error;
- a fix with both killers is caught when either catches it, its reason names
  both verdicts and the experiment's own verdict is kept;
- the HistoryResult validates with the experiment block and the tags' chaos
  keys; the table and the plan name the experiment;
- `prove` refuses to start without a chaos runner when a fix needs one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.errors import CommandError
from conformance.exitcodes import ExitCode
from conformance.report.scores import historical
from conformance.report.scores import provenance
from conformance.spec import SpecError
from conformance.spec import history
from tests.wpc.diff.builders import chaos_report
from tests.wpc.history.builders import SIGTERM
from tests.wpc.history.builders import FakeRepo
from tests.wpc.history.builders import document_of
from tests.wpc.history.builders import fix
from tests.wpc.history.builders import history_of
from tests.wpc.history.builders import sha
from tests.wpc.history.test_proving import CAUGHT_BOTH
from tests.wpc.history.test_proving import FakeRunner
from tests.wpc.history.test_proving import Script
from wpc import suite_cli as conformance_cli
from wpc.history import experiments
from wpc.history import plans
from wpc.history import proving
from wpc.history import rendering
from wpc.history import results
from wpc.qualify.chaos_running import ChaosRun

RESTART = "controller-down-across-completion-with-finalizer"
POD = "pod-deleted-while-main-runs"
KILLER = {"name": RESTART, "why": "the old controller keeps the lease"}

ChaosScript = dict[str, dict[tuple[str, str], str]]
"""tag -> (experiment, layout) -> outcome, for the fake chaos suite."""


class FakeChaosRunner:
    """Writes each chaos run's ChaosReport from a script; a tag in `broken` leaves none."""

    def __init__(self, script: ChaosScript, broken: tuple[str, ...] = ()) -> None:
        self.script = script
        self.broken = broken
        self.runs: list[ChaosRun] = []

    def __call__(self, run: ChaosRun) -> Path:
        self.runs.append(run)
        if run.build.ref in self.broken:
            raise CommandError(
                command=["python", "-m", "chaos", "run"],
                returncode=1,
                output="the chaos run left no report\n",
            )
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        path = run.reports_dir / "chaos-argo-workflows.yaml"
        path.write_text(yaml.safe_dump(chaos_report(self.script[run.build.ref])))
        return path


REPO = FakeRepo(
    {"v4.1.0": sha(10), "v4.1.1": sha(11), "v4.1.2": sha(12)},
    {"v4.1.1": {sha(1), sha(2)}, "v4.1.2": {sha(1), sha(2), sha(3)}},
)


def plan_of(*entries):
    loaded = history_of(*entries)
    return proving.make_plan(
        loaded,
        plans.select(loaded),
        source="/src/argo",
        layout="both",
        substitute_built=False,
        repo=REPO,
        is_built=lambda commit: False,
    )


def prove(tmp_path, plan, runner, chaos_runner):
    return proving.prove(
        plan,
        runner,
        out_dir=tmp_path / "h",
        implementation="argo-workflows",
        history_file="history.yaml",
        started=0.0,
        clock=lambda: 60.0,
        chaos_runner=chaos_runner,
    )


def chaos_only(**changes):
    return fix(
        "restart",
        commit=sha(2),
        before="v4.1.0",
        after="v4.1.1",
        scenario=None,
        experiment={**KILLER, **changes},
    )


def both(before: str, after: str) -> ChaosScript:
    return {
        "v4.1.0": {(RESTART, "legacy"): before, (RESTART, "initless"): before},
        "v4.1.1": {(RESTART, "legacy"): after, (RESTART, "initless"): after},
    }


def test_the_schema_takes_an_experiment_and_refuses_one_without_why():
    loaded = history_of(chaos_only(layouts=["legacy"]))
    (only,) = loaded.fixes
    assert only.experiment == history.Experiment(
        name=RESTART, layouts=("legacy",), why="the old controller keeps the lease"
    )
    broken = chaos_only()
    del broken["experiment"]["why"]
    with pytest.raises(SpecError, match=r"entries\[0\] \(restart\)\.experiment"):
        history.build(document_of(broken))


def test_an_experiment_that_does_not_exist_or_lacks_the_layout_is_a_problem():
    known = {RESTART: ("legacy", "initless"), "legacy-only": ("legacy",)}
    assert experiments.problems(history_of(chaos_only()), known) == []
    wrong = history_of(chaos_only(name="no-such-experiment"))
    (problem,) = experiments.problems(wrong, known)
    assert problem.startswith("restart: experiment no-such-experiment does not exist")
    layout = history_of(chaos_only(name="legacy-only", layouts=["initless"]))
    assert experiments.problems(layout, known) == [
        "restart: experiment legacy-only declares the layouts legacy, not initless"
    ]


def test_the_shipped_experiments_and_history_agree():
    shipped = experiments.declared()
    assert shipped[RESTART] == ("legacy", "initless")
    assert shipped["controller-restarted-while-suspended"] == ("legacy",)
    loaded = history.load()
    assert experiments.problems(loaded) == []
    sigterm = next(f for f in loaded.fixes if f.issue == 15863)
    assert sigterm.experiment is not None
    assert sigterm.experiment.name == RESTART
    assert sigterm.scenario is not None  # the scenario stays, the experiment is beside


def test_the_history_verb_refuses_an_experiment_that_does_not_exist(tmp_path, capsys):
    path = tmp_path / "history.yaml"
    path.write_text(yaml.safe_dump(document_of(chaos_only(name="no-such-experiment"))))
    code = conformance_cli.main(["history", "--file", str(path)])
    assert code == ExitCode.INVALID_INPUT
    assert "experiment no-such-experiment does not exist" in capsys.readouterr().err


def test_a_fix_named_only_by_an_experiment_runs_through_the_chaos_suite(tmp_path):
    plan = plan_of(chaos_only())
    assert [f.id for f in plan.selection.runnable] == ["restart"]
    assert [(r.tag, r.scenarios, r.experiments) for r in plan.runs] == [
        ("v4.1.0", (), (RESTART,)),
        ("v4.1.1", (), (RESTART,)),
    ]
    runner, chaos = FakeRunner({}), FakeChaosRunner(both("failed", "passed"))
    outcome = prove(tmp_path, plan, runner, chaos)
    assert runner.runs == []
    assert [(r.build.ref, r.layout, r.keywords, r.reports_dir) for r in chaos.runs] == [
        ("v4.1.0", "both", RESTART, tmp_path / "h" / "v4.1.0" / "chaos"),
        ("v4.1.1", "both", RESTART, tmp_path / "h" / "v4.1.1" / "chaos"),
    ]
    (entry,) = outcome.entries
    assert entry.verdict == plans.CAUGHT
    assert entry.reason == ("failed on v4.1.0 and passed on v4.1.1 in legacy, initless")
    assert entry.evidence == "steadyStateAfter: not steady"
    assert entry.before is None
    assert entry.experiment is not None
    assert entry.experiment.before.report == str(
        tmp_path / "h" / "v4.1.0" / "chaos" / "chaos-argo-workflows.yaml"
    )
    assert outcome.score.text() == "1/1 (1.000)"
    text = rendering.table(outcome, "r.yaml")
    assert (
        "restart  caught   chaos v4.1.0 legacy=failed initless=failed  "
        "chaos v4.1.1 legacy=passed initless=passed"
    ) in text


@pytest.mark.parametrize(
    ("before", "after", "verdict", "reason"),
    [
        ("passed", "passed", plans.MISSED, "passed on v4.1.0, which has the bug"),
        ("failed", "failed", plans.BROKEN_AFTER, "failed on v4.1.1, which has the fix"),
        (
            "not-applicable",
            "passed",
            plans.NOT_RUN,
            "ran in no layout on v4.1.0 (before): legacy: skipped "
            "(the provider cannot signal a container)",
        ),
        (
            "injection-unverified",
            "passed",
            plans.NOT_RUN,
            "harness error on v4.1.0 (before) in legacy, initless: "
            "injection unverified: seen",
        ),
    ],
)
def test_an_experiment_is_judged_as_a_scenario_is(
    tmp_path, before, after, verdict, reason
):
    outcome = prove(
        tmp_path,
        plan_of(chaos_only()),
        FakeRunner({}),
        FakeChaosRunner(both(before, after)),
    )
    (entry,) = outcome.entries
    assert entry.verdict == verdict
    assert entry.reason.startswith(reason)


def test_a_chaos_run_without_a_report_makes_the_fix_not_run(tmp_path):
    chaos = FakeChaosRunner(both("failed", "passed"), broken=("v4.1.1",))
    outcome = prove(tmp_path, plan_of(chaos_only()), FakeRunner({}), chaos)
    (entry,) = outcome.entries
    assert entry.verdict == plans.NOT_RUN
    assert entry.reason == (
        "no report from v4.1.1 (after): exit code 1: the chaos run left no report"
    )


def sigterm_with_experiment(layouts: list[str] | None = None):
    killer = dict(KILLER) | ({"layouts": layouts} if layouts else {})
    return fix(
        "sigterm", commit=sha(1), before="v4.1.0", after="v4.1.1", experiment=killer
    )


def test_a_fix_with_both_killers_is_caught_when_either_catches_it(tmp_path):
    missed: Script = {
        "v4.1.0": {SIGTERM: {"legacy": "passed", "initless": "passed"}},
        "v4.1.1": CAUGHT_BOTH["v4.1.1"],
    }
    runner, chaos = FakeRunner(missed), FakeChaosRunner(both("failed", "passed"))
    outcome = prove(
        tmp_path, plan_of(sigterm_with_experiment(["legacy"])), runner, chaos
    )
    assert [r.build.ref for r in runner.runs] == ["v4.1.0", "v4.1.1"]
    assert [r.build.ref for r in chaos.runs] == ["v4.1.0", "v4.1.1"]
    (entry,) = outcome.entries
    assert entry.verdict == plans.CAUGHT
    assert entry.reason == (
        "scenario missed: passed on v4.1.0, which has the bug, in legacy, initless; "
        f"experiment {RESTART} caught: failed on v4.1.0 and passed on v4.1.1 in legacy"
    )
    assert entry.before is not None
    assert entry.before.layouts["legacy"].outcome == "passed"
    assert entry.experiment is not None
    assert entry.experiment.layouts == ("legacy",)
    assert list(entry.experiment.before.layouts) == ["legacy"]

    measured = provenance.Provenance(
        commit="c" * 40, dirty=False, changes=None, spec_version="1.0"
    )
    path = results.write(results.document(outcome, measured), tmp_path / "r.yaml")
    loaded = historical.load(path)
    block = loaded["entries"][0]["experiment"]
    assert (block["name"], block["verdict"], block["layouts"]) == (
        RESTART,
        "caught",
        ["legacy"],
    )
    assert block["before"]["layouts"]["legacy"]["outcome"] == "failed"
    assert [(t["experiments"], t["chaosKeywords"]) for t in loaded["tags"]] == [
        ([RESTART], RESTART),
        ([RESTART], RESTART),
    ]
    text = rendering.table(outcome, str(path))
    assert f"experiment {RESTART}: caught; before v4.1.0 legacy=failed" in text


def test_both_killers_missing_it_is_a_miss_naming_both(tmp_path):
    missed: Script = {
        "v4.1.0": {SIGTERM: {"legacy": "passed", "initless": "passed"}},
        "v4.1.1": CAUGHT_BOTH["v4.1.1"],
    }
    outcome = prove(
        tmp_path,
        plan_of(sigterm_with_experiment()),
        FakeRunner(missed),
        FakeChaosRunner(both("passed", "passed")),
    )
    (entry,) = outcome.entries
    assert entry.verdict == plans.MISSED
    assert entry.reason.startswith("scenario missed: ")
    assert f"; experiment {RESTART} missed: " in entry.reason


def test_the_plan_names_the_experiment_and_prove_needs_a_chaos_runner(tmp_path):
    plan = plan_of(sigterm_with_experiment(["legacy"]))
    text = rendering.plan_text(plan, {})
    assert "test_recovery_controller_sigterm.py::test_a_gracefully" in text
    assert f"+ chaos {RESTART} [legacy]" in text
    with pytest.raises(ValueError, match="need a chaos runner"):
        prove(tmp_path, plan, FakeRunner(CAUGHT_BOTH), None)
