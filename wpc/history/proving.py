"""The order of work of `history run`, for any runner (tests pass a fake one).

1. `make_plan`: the fixes that run, both sides' tags (asked of git), whether
   each is built (asked of the cache), whether the profile can build it at all
   (its go.mod's module), the substitutions when allowed, and one run per tag;
   nothing is built or run, so `--plan` stops here;
2. `prove`: each tag run once (`<out>/<build>/conformance.yaml`) with its
   fixes' scenarios selected by `-k`, in both layouts by default; the profile
   builds a tag that is not built. A tag whose fixes name chaos experiments
   also gets one chaos run selecting them (`<out>/<build>/chaos/`, with a
   `ChaosRunner`). A tag it cannot build is not run, and a run that leaves no
   report is recorded with its error; the others go on;
3. every fix judged from its two tags' reports (`verdicts`): its scenario from
   the ConformanceReports, its experiment from the ChaosReports, by the same
   rules, and caught when either killer catches it; every other fix listed
   with its reason, and the wall time of it all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Protocol

from conformance.errors import CommandError
from conformance.errors import ConformanceError
from conformance.harness.instances import layouts
from conformance.spec.history import Fix
from conformance.spec.history import History
from wpc.diff import chaoscases
from wpc.diff import reading
from wpc.history import plans
from wpc.history import substituting
from wpc.history import verdicts
from wpc.history.plans import Plan
from wpc.history.plans import Selection
from wpc.history.results import EntryResult
from wpc.history.results import KillerResult
from wpc.history.results import Outcome
from wpc.history.results import TagOutcome
from wpc.history.verdicts import Judgement
from wpc.history.verdicts import LayoutOutcome
from wpc.history.verdicts import SideResult
from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.chaos_running import ChaosRunner
from wpc.qualify.running import Run
from wpc.qualify.running import Runner


class Repository(substituting.Ancestry, Protocol):
    """What planning asks of git (`ancestry.GitRepository`)."""

    def tags(self) -> dict[str, str]:
        """Every tag and its commit."""
        ...

    def module(self, ref: str) -> str:
        """The module path go.mod names at `ref` ('' without one)."""
        ...


def make_plan(
    history: History,
    selection: Selection,
    *,
    source: str,
    layout: str,
    substitute_built: bool,
    repo: Repository,
    is_built: Callable[[str], bool],
) -> Plan:
    """Every tag to run and why, from git and the build cache only."""
    needs = plans.needs(selection.runnable)
    commits = {need.tag: repo.commit(need.tag) for need in needs}
    if substitute_built:
        built = [tag for tag, commit in sorted(repo.tags().items()) if is_built(commit)]
        used, swaps = substituting.choose(selection.runnable, needs, built, repo)
    else:
        used, swaps = {need: need.tag for need in needs}, ()
    for tag in used.values():
        if tag not in commits:
            commits[tag] = repo.commit(tag)
    runs = plans.group(
        selection.runnable,
        used,
        source=source,
        commits=commits,
        cached={tag: is_built(commits[tag]) for tag in set(used.values())},
        modules={tag: repo.module(tag) for tag in set(used.values())},
    )
    return Plan(
        history=history,
        selection=selection,
        source=source,
        layout=layout,
        substitute_built=substitute_built,
        used=used,
        substitutions=swaps,
        runs=runs,
    )


def run_of(plan: Plan, tag_run: plans.TagRun, out_dir: Path) -> Run:
    """The suite run of one tag: both layouts (or the one asked), its scenarios only."""
    return Run(
        build=tag_run.build,
        layout=plan.layout,
        reports_dir=out_dir / tag_run.build.build,
        keywords=tag_run.keywords,
    )


def chaos_run_of(plan: Plan, tag_run: plans.TagRun, out_dir: Path) -> ChaosRun:
    """The chaos run of one tag: its fixes' experiments, in the layouts asked."""
    return ChaosRun(
        build=tag_run.build,
        layout=plan.layout,
        reports_dir=out_dir / tag_run.build.build / "chaos",
        keywords=tag_run.chaos_keywords,
    )


def _error(exc: ConformanceError) -> str:
    if isinstance(exc, CommandError):
        said = [line for line in exc.output.strip().splitlines() if line.strip()]
        return f"exit code {exc.returncode}: {said[-1] if said else 'no output'}"
    return str(exc)


Document = dict[str, Any]


@dataclass(frozen=True)
class Ran:
    """One tag's runs: the outcome recorded, and the reports read (None: none)."""

    outcome: TagOutcome
    suite: Document | None
    chaos: Document | None


def _killer_side(
    fix: Fix,
    side: str,
    plan: Plan,
    found: tuple[str | None, str | None, Document | None],
    outcomes_of: Callable[[Document], Mapping[str, LayoutOutcome]],
) -> SideResult:
    """One side of one killer: its report (or error) and its outcome per layout."""
    report, error, document = found
    return SideResult(
        side=side,
        needed=plan.needed(fix.id, side),
        tag=plan.run_of(fix.id, side).tag,
        report=report,
        error=error,
        layouts=outcomes_of(document) if document is not None else {},
    )


def _scenario_side(fix: Fix, side: str, plan: Plan, ran: Ran) -> SideResult:
    return _killer_side(
        fix,
        side,
        plan,
        (ran.outcome.report, ran.outcome.error, ran.suite),
        lambda document: verdicts.layout_outcomes(
            document,
            str(fix.scenario),
            layouts.parse_selection(plan.layout),
            clause=fix.clause,
        ),
    )


def experiment_layouts(fix: Fix, plan: Plan) -> tuple[str, ...]:
    """Where a fix's experiment is judged: the layouts it names, of those run."""
    run = layouts.parse_selection(plan.layout)
    named = fix.experiment.layouts if fix.experiment is not None else ()
    return tuple(layout for layout in run if not named or layout in named)


def _experiment_side(fix: Fix, side: str, plan: Plan, ran: Ran) -> SideResult:
    name = fix.experiment.name if fix.experiment is not None else ""
    return _killer_side(
        fix,
        side,
        plan,
        (ran.outcome.chaos_report, ran.outcome.chaos_error, ran.chaos),
        lambda document: verdicts.experiment_outcomes(
            document, name, experiment_layouts(fix, plan)
        ),
    )


def _judge(fix: Fix, plan: Plan, tags: Mapping[str, Ran]) -> EntryResult:
    """One running fix: each killer judged from its two sides, then combined."""

    def ran(side: str) -> Ran:
        return tags[plan.run_of(fix.id, side).tag]

    judgements: list[tuple[str, Judgement]] = []
    scenario: tuple[SideResult, SideResult] | None = None
    killer: KillerResult | None = None
    if fix.scenario is not None:
        scenario = (
            _scenario_side(fix, plans.BEFORE, plan, ran(plans.BEFORE)),
            _scenario_side(fix, plans.AFTER, plan, ran(plans.AFTER)),
        )
        judgements.append(("scenario", verdicts.judge(*scenario)))
    if fix.experiment is not None:
        before = _experiment_side(fix, plans.BEFORE, plan, ran(plans.BEFORE))
        after = _experiment_side(fix, plans.AFTER, plan, ran(plans.AFTER))
        judged = verdicts.judge(before, after)
        judgements.append((f"experiment {fix.experiment.name}", judged))
        killer = KillerResult(
            name=fix.experiment.name,
            layouts=experiment_layouts(fix, plan),
            verdict=judged.verdict,
            reason=judged.reason,
            evidence=judged.evidence,
            before=before,
            after=after,
        )
    judgement = verdicts.combine(judgements)
    return EntryResult(
        fix,
        judgement.verdict,
        judgement.reason,
        judgement.evidence,
        before=scenario[0] if scenario else None,
        after=scenario[1] if scenario else None,
        experiment=killer,
    )


def judge_all(plan: Plan, tags: Mapping[str, Ran]) -> tuple[EntryResult, ...]:
    """Every fix of the history, in its order: judged when it ran, else its reason."""
    excluded = {e.fix.id: e for e in plan.selection.excluded}
    entries = []
    for fix in plan.history.fixes:
        if fix.id in excluded:
            entries.append(
                EntryResult(fix, excluded[fix.id].verdict, excluded[fix.id].reason)
            )
        else:
            entries.append(_judge(fix, plan, tags))
    return tuple(entries)


def _read(
    run: Callable[[], Path], read: Callable[[Path], Document]
) -> tuple[str | None, str | None, Document | None]:
    """Run one tag's run and read its report: (report, error, document)."""
    try:
        report = run()
        document = read(report)
    except ConformanceError as exc:
        return None, _error(exc), None
    return str(report), None, document


def _run_tag(
    plan: Plan,
    tag_run: plans.TagRun,
    runner: Runner,
    chaos_runner: ChaosRunner | None,
    out_dir: Path,
) -> Ran:
    """A tag's suite run (if it serves a scenario) and chaos run (if an experiment)."""
    if tag_run.skipped is not None:
        why = f"not run: {tag_run.skipped}"
        return Ran(TagOutcome(tag_run, None, why, None, why), None, None)
    suite: tuple[str | None, str | None, Document | None] = (
        None,
        "not run: no fix it serves names a scenario",
        None,
    )
    if tag_run.scenarios:
        suite = _read(lambda: runner(run_of(plan, tag_run, out_dir)), reading.read)
    chaos: tuple[str | None, str | None, Document | None] = (None, None, None)
    if tag_run.experiments and chaos_runner is not None:
        chaos = _read(
            lambda: chaos_runner(chaos_run_of(plan, tag_run, out_dir)),
            chaoscases.read,
        )
    return Ran(
        TagOutcome(tag_run, suite[0], suite[1], chaos[0], chaos[1]), suite[2], chaos[2]
    )


def prove(
    plan: Plan,
    runner: Runner,
    *,
    out_dir: Path,
    implementation: str,
    history_file: str,
    started: float,
    clock: Callable[[], float] = time.monotonic,
    chaos_runner: ChaosRunner | None = None,
) -> Outcome:
    """Run every tag once, judge every fix; `started` is the clock when work began.

    `chaos_runner` runs the tags whose fixes name experiments (ValueError
    without one when a tag needs it).
    """
    if chaos_runner is None and any(r.experiments for r in plan.runs):
        raise ValueError("fixes named by an experiment need a chaos runner")
    tags = {
        tag_run.tag: _run_tag(plan, tag_run, runner, chaos_runner, out_dir)
        for tag_run in plan.runs
    }
    return Outcome(
        plan=plan,
        tags=tuple(ran.outcome for ran in tags.values()),
        entries=judge_all(plan, tags),
        wall_seconds=clock() - started,
        implementation=implementation,
        history_file=history_file,
    )
