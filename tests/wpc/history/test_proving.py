"""We test a whole history run with a fake runner (no cluster, no build):

- each tag is run once, in both layouts, into `<out>/<build>`, selecting the
  scenarios of every fix that uses it with `-k`;
- every fix of the history gets a verdict: the two that ran are judged from
  their tags' reports, the others carry their reason;
- the score is caught / in scope: an unobservable fix and one without a
  scenario are in the denominator, an out-of-scope fix is not;
- a tag whose run leaves no report makes its fixes not-run with the run's
  error, and the other tags still run;
- the HistoryResult validates, records the substitutions, tags and wall time,
  and reads back as the report's `historicalMutationScore`;
- the exit code: 0 all caught, 16 a miss or a failure after the fix, 12 a fix
  that could not be judged; the table shows each verdict, the score and the
  wall time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from conformance.errors import CommandError
from conformance.exitcodes import ExitCode
from conformance.report.scores import historical
from conformance.report.scores import provenance
from tests.wpc.history.builders import SIGTERM
from tests.wpc.history.builders import WORKDIR
from tests.wpc.history.builders import FakeRepo
from tests.wpc.history.builders import fix
from tests.wpc.history.builders import history_of
from tests.wpc.history.builders import scenario_report
from tests.wpc.history.builders import sha
from wpc.history import cli as history_cli
from wpc.history import plans
from wpc.history import proving
from wpc.history import rendering
from wpc.history import results
from wpc.history.plans import Substitution
from wpc.qualify.running import Run

Script = dict[str, dict[str, dict[str, str]]]
"""tag -> scenario -> layout -> outcome, for the fake suite."""

CAUGHT_BOTH: Script = {
    "v4.1.0": {SIGTERM: {"legacy": "failed", "initless": "failed"}},
    "v4.1.1": {
        SIGTERM: {"legacy": "passed", "initless": "passed"},
        WORKDIR: {"legacy": "skipped", "initless": "failed"},
    },
    "v4.1.2": {WORKDIR: {"legacy": "skipped", "initless": "passed"}},
}


class FakeRunner:
    """Writes each run's report from a script; a tag in `broken` leaves none."""

    def __init__(self, script: Script, broken: tuple[str, ...] = ()) -> None:
        self.script = script
        self.broken = broken
        self.runs: list[Run] = []

    def __call__(self, run: Run) -> Path:
        self.runs.append(run)
        if run.build.ref in self.broken:
            raise CommandError(
                command=["python", "-m", "conformance", "run"],
                returncode=12,
                output="building argoexec\ngo: build failed\n",
            )
        path = run.report
        tests = []
        for scenario, outcomes in self.script[run.build.ref].items():
            scenario_report(
                path,
                scenario,
                outcomes,
                message="E   AssertionError: WPC-RECOVERY-011 and WPC-INITLESS-009: bad",
            )
            tests += yaml.safe_load(path.read_text())["tests"]
        document = yaml.safe_load(path.read_text())
        document["tests"] = tests
        path.write_text(yaml.safe_dump(document))
        return path


def sample():
    return history_of(
        fix("sigterm", commit=sha(1), before="v4.1.0", after="v4.1.1"),
        fix(
            "workdir",
            commit=sha(2),
            before="v4.1.1",
            after="v4.1.2",
            scenario=WORKDIR,
            clause="WPC-INITLESS-009",
        ),
        fix("hidden", commit=sha(3), before="v4.1.0", after="v4.1.1", observable=False),
        fix(
            "elsewhere", commit=sha(4), before="v4.1.0", after="v4.1.1", in_scope=False
        ),
        fix("unwritten", commit=sha(5), before="v4.1.0", after="v4.1.1", scenario=None),
    )


REPO = FakeRepo(
    {"v4.1.0": sha(10), "v4.1.1": sha(11), "v4.1.2": sha(12)},
    {"v4.1.1": {sha(1)}, "v4.1.2": {sha(1), sha(2)}},
)


def plan_of(*, substitute: bool = False, built: frozenset[str] = frozenset()):
    loaded = sample()
    return proving.make_plan(
        loaded,
        plans.select(loaded),
        source="/src/argo",
        layout="both",
        substitute_built=substitute,
        repo=REPO,
        is_built=lambda commit: commit in built,
    )


def prove(
    tmp_path: Path,
    runner: FakeRunner,
    plan=None,
    clock: Callable[[], float] = lambda: 331.0,
) -> results.Outcome:
    return proving.prove(
        plan or plan_of(),
        runner,
        out_dir=tmp_path / "history",
        implementation="argo-workflows",
        history_file="history.yaml",
        started=0.0,
        clock=clock,
    )


def verdicts_of(outcome: results.Outcome) -> dict[str, str]:
    return {e.fix.id: e.verdict for e in outcome.entries}


def test_each_tag_runs_once_in_both_layouts_with_its_scenarios(tmp_path: Path):
    runner = FakeRunner(CAUGHT_BOTH)
    prove(tmp_path, runner)
    assert [(r.build.ref, r.layout) for r in runner.runs] == [
        ("v4.1.0", "both"),
        ("v4.1.1", "both"),
        ("v4.1.2", "both"),
    ]
    shared = runner.runs[1]
    assert shared.reports_dir == tmp_path / "history" / "v4.1.1"
    assert "test_a_gracefully_deleted" in shared.keywords
    assert "test_initless_main_symlinks" in shared.keywords
    assert "test_initless_main_symlinks" not in runner.runs[0].keywords


def test_every_fix_gets_a_verdict_and_the_score_counts_the_in_scope_ones(
    tmp_path: Path,
):
    outcome = prove(tmp_path, FakeRunner(CAUGHT_BOTH))
    assert verdicts_of(outcome) == {
        "sigterm": plans.CAUGHT,
        "workdir": plans.CAUGHT,
        "hidden": plans.UNOBSERVABLE,
        "elsewhere": plans.OUT_OF_SCOPE,
        "unwritten": plans.NO_SCENARIO,
    }
    assert (outcome.score.caught, outcome.score.in_scope) == (2, 4)
    assert outcome.score.text() == "2/4 (0.500)"
    assert history_cli.exit_code(outcome) == 0
    workdir = next(e for e in outcome.entries if e.fix.id == "workdir")
    assert (
        workdir.evidence == "AssertionError: WPC-RECOVERY-011 and WPC-INITLESS-009: bad"
    )
    assert workdir.before is not None
    assert workdir.before.layouts["legacy"].outcome == "skipped"


def test_a_tag_without_a_report_makes_its_fixes_not_run(tmp_path: Path):
    runner = FakeRunner(CAUGHT_BOTH, broken=("v4.1.2",))
    outcome = prove(tmp_path, runner)
    assert len(runner.runs) == 3  # the other tags still ran
    assert verdicts_of(outcome)["workdir"] == plans.NOT_RUN
    assert verdicts_of(outcome)["sigterm"] == plans.CAUGHT
    workdir = next(e for e in outcome.entries if e.fix.id == "workdir")
    assert (
        workdir.reason
        == "no report from v4.1.2 (after): exit code 12: go: build failed"
    )
    assert history_cli.exit_code(outcome) == ExitCode.PREPARE_FAILED


@pytest.mark.parametrize(
    ("change", "verdict"),
    [
        (
            {"v4.1.0": {SIGTERM: {"legacy": "passed", "initless": "passed"}}},
            plans.MISSED,
        ),
        (
            {
                "v4.1.1": {
                    **CAUGHT_BOTH["v4.1.1"],
                    SIGTERM: {"legacy": "failed", "initless": "passed"},
                }
            },
            plans.BROKEN_AFTER,
        ),
    ],
    ids=["missed", "broken-after"],
)
def test_a_miss_or_a_failure_after_the_fix_exits_16(
    tmp_path: Path, change: Script, verdict: str
):
    outcome = prove(tmp_path, FakeRunner({**CAUGHT_BOTH, **change}))
    assert verdicts_of(outcome)["sigterm"] == verdict
    assert history_cli.exit_code(outcome) == ExitCode.NOT_CAUGHT == 16


def test_the_result_validates_and_reads_back_as_the_reports_score(tmp_path: Path):
    plan = plan_of(substitute=True, built=frozenset({sha(10), sha(12)}))
    # v4.1.0 lacks workdir's fix but is older than v4.1.1, its last tag with the bug
    assert [(s.entry, s.side, s.used) for s in plan.substitutions] == [
        ("sigterm", plans.AFTER, "v4.1.2"),
    ]
    script: Script = {
        "v4.1.0": CAUGHT_BOTH["v4.1.0"],
        "v4.1.1": {WORKDIR: CAUGHT_BOTH["v4.1.1"][WORKDIR]},
        "v4.1.2": CAUGHT_BOTH["v4.1.1"] | CAUGHT_BOTH["v4.1.2"],
    }
    runner = FakeRunner(script)
    outcome = prove(tmp_path, runner, plan)
    assert [r.build.ref for r in runner.runs] == ["v4.1.0", "v4.1.2", "v4.1.1"]
    measured = provenance.Provenance(
        commit="c" * 40, dirty=True, changes="d" * 64, spec_version="1.0"
    )
    document = results.document(outcome, measured)
    path = results.write(document, tmp_path / "history" / "history-result.yaml")
    loaded = historical.load(path)
    assert loaded["wallSeconds"] == 331.0
    assert loaded["substituteBuilt"] is True
    assert [s["used"] for s in loaded["substitutions"]] == ["v4.1.2"]
    assert [(t["tag"], t["cached"], t["entries"]) for t in loaded["tags"]] == [
        ("v4.1.0", True, ["sigterm"]),
        ("v4.1.2", True, ["sigterm", "workdir"]),
        ("v4.1.1", False, ["workdir"]),
    ]
    sigterm = loaded["entries"][0]
    assert sigterm["after"]["neededTag"] == "v4.1.1"
    assert sigterm["after"]["tag"] == "v4.1.2"
    assert sigterm["before"]["report"] == str(
        tmp_path / "history" / "v4.1.0" / "conformance.yaml"
    )
    assert loaded["counts"]["caught"] == 2
    assert loaded["measuredOn"] == measured.to_json()
    assert loaded["suite"]["commit"] == "c" * 40
    slot = historical.read(path, current=measured)
    assert slot["stale"] is False
    assert slot["caught"] == 2
    assert slot["inScope"] == 4
    assert slot["score"] == 0.5
    assert slot["suiteCommit"] == loaded["suite"]["commit"]
    assert slot["verdicts"][2] == {"id": "hidden", "verdict": "unobservable"}
    assert slot["source"] == str(path)


def test_the_table_shows_verdicts_score_and_wall_time(tmp_path: Path):
    outcome = prove(tmp_path, FakeRunner(CAUGHT_BOTH))
    text = rendering.table(outcome, "reports/history/history-result.yaml")
    assert "sigterm" in text
    assert "caught" in text
    assert "v4.1.0 legacy=failed initless=failed" in text
    assert "unobservable" in text
    assert "happens inside the controller only" in text
    assert "historical mutation score: 2/4 (0.500) fixed bugs caught / in scope" in text
    assert "wall time: 5 min 31 s" in text


def test_the_plan_text_names_swaps_builds_and_exclusions():
    plan = plan_of(substitute=True, built=frozenset({sha(12)}))
    assert plan.substitutions == (
        Substitution(
            entry="sigterm",
            side=plans.AFTER,
            needed="v4.1.1",
            used="v4.1.2",
            distance=1,
            reason=f"v4.1.2 is built and contains the fix ({sha(1)[:12]})",
        ),
    )
    text = rendering.plan_text(plan, {r.tag: f"run {r.tag}" for r in plan.runs})
    assert "v4.1.1 -> v4.1.2" in text
    assert "v4.1.0 (" + sha(10)[:12] + ", to build)" in text
    assert "v4.1.2 (" + sha(12)[:12] + ", built)" in text
    assert "    run v4.1.1" in text
    assert re.search(r"^  hidden +unobservable +happens inside", text, re.MULTILINE)
    assert re.search(r"^  elsewhere +out-of-scope +not part of", text, re.MULTILINE)


def test_a_tag_of_another_go_module_is_not_run_and_says_why(tmp_path: Path):
    loaded = history_of(fix("old", commit=sha(1), before="v3.9.0", after="v4.1.1"))
    repo = FakeRepo({"v3.9.0": sha(9), "v4.1.1": sha(11)}, {"v4.1.1": {sha(1)}})
    plan = proving.make_plan(
        loaded,
        plans.select(loaded),
        source="/src/argo",
        layout="both",
        substitute_built=False,
        repo=repo,
        is_built=lambda commit: False,
    )
    why = (
        "v3.9.0's go.mod names module github.com/argoproj/argo-workflows/v2, which "
        "the profile's builder refuses"
    )
    useless = "every fix it serves (old) needs a tag the profile cannot build on its other side"
    assert [(r.tag, r.skipped) for r in plan.runs] == [
        ("v3.9.0", why),
        ("v4.1.1", useless),
    ]
    text = rendering.plan_text(plan, {})
    assert "tags (2 runs, 0 to build first" in text
    assert f"v3.9.0 ({sha(9)[:12]}, not run): old\n    {why}" in text
    runner = FakeRunner({})
    outcome = prove(tmp_path, runner, plan)
    assert runner.runs == []
    (entry,) = outcome.entries
    assert entry.verdict == plans.NOT_RUN
    assert entry.reason == (
        f"no report from v3.9.0 (before): not run: {why}; "
        f"no report from v4.1.1 (after): not run: {useless}"
    )


def test_a_shared_tag_runs_without_the_scenario_of_a_fix_it_cannot_judge():
    loaded = history_of(
        fix("old", commit=sha(1), before="v3.9.0", after="v4.1.1"),
        fix("new", commit=sha(2), before="v4.1.1", after="v4.1.2", scenario=WORKDIR),
    )
    repo = FakeRepo(
        {"v3.9.0": sha(9), "v4.1.1": sha(11), "v4.1.2": sha(12)},
        {"v4.1.1": {sha(1)}, "v4.1.2": {sha(1), sha(2)}},
    )
    plan = proving.make_plan(
        loaded,
        plans.select(loaded),
        source="/src/argo",
        layout="both",
        substitute_built=False,
        repo=repo,
        is_built=lambda commit: False,
    )
    assert [(r.tag, r.entries, r.skipped is None) for r in plan.runs] == [
        ("v3.9.0", ("old",), False),
        ("v4.1.1", ("old", "new"), True),
        ("v4.1.2", ("new",), True),
    ]
    shared = plan.runs[1]
    assert shared.scenarios == (WORKDIR,)
    assert shared.blocked == ("old",)
    assert "test_a_gracefully" not in shared.keywords
    text = rendering.plan_text(plan, {})
    assert "(not selected: old, whose other tag cannot be built)" in text
