"""The order of work of `history run`, for any runner (tests pass a fake one).

1. `make_plan`: the fixes that run, both sides' tags (asked of git), whether
   each is built (asked of the cache), whether the profile can build it at all
   (its go.mod's module), the substitutions when allowed, and one run per tag;
   nothing is built or run, so `--plan` stops here;
2. `prove`: each tag run once (`<out>/<build>/conformance.yaml`) with its
   fixes' scenarios selected by `-k`, in both layouts by default; the profile
   builds a tag that is not built. A tag it cannot build is not run, and a
   run that leaves no report is recorded with its error; the others go on;
3. every fix judged from its two tags' reports (`verdicts`), every other fix
   listed with its reason, and the wall time of it all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from conformance.errors import CommandError
from conformance.errors import ConformanceError
from conformance.spec.history import Fix
from conformance.spec.history import History
from wpc.diff import reading
from wpc.history import plans
from wpc.history import substituting
from wpc.history import verdicts
from wpc.history.plans import Plan
from wpc.history.plans import Selection
from wpc.history.results import EntryResult
from wpc.history.results import Outcome
from wpc.history.results import TagOutcome
from wpc.history.verdicts import SideResult
from wpc.qualify.running import Run
from wpc.qualify.running import Runner

LAYOUTS = {
    "both": ("legacy", "initless"),
    "legacy": ("legacy",),
    "initless": ("initless",),
}


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


def _error(exc: ConformanceError) -> str:
    if isinstance(exc, CommandError):
        said = [line for line in exc.output.strip().splitlines() if line.strip()]
        return f"exit code {exc.returncode}: {said[-1] if said else 'no output'}"
    return str(exc)


def _side(
    fix: Fix,
    side: str,
    plan: Plan,
    tags: dict[str, tuple[TagOutcome, dict[str, object] | None]],
) -> SideResult:
    tag_run = plan.run_of(fix.id, side)
    outcome, document = tags[tag_run.tag]
    layouts = LAYOUTS[plan.layout]
    return SideResult(
        side=side,
        needed=plan.needed(fix.id, side),
        tag=tag_run.tag,
        report=outcome.report,
        error=outcome.error,
        layouts=(
            verdicts.layout_outcomes(document, str(fix.scenario), layouts)
            if document is not None
            else {}
        ),
    )


def judge_all(
    plan: Plan, tags: dict[str, tuple[TagOutcome, dict[str, object] | None]]
) -> tuple[EntryResult, ...]:
    """Every fix of the history, in its order: judged when it ran, else its reason."""
    excluded = {e.fix.id: e for e in plan.selection.excluded}
    entries = []
    for fix in plan.history.fixes:
        if fix.id in excluded:
            entries.append(
                EntryResult(fix, excluded[fix.id].verdict, excluded[fix.id].reason)
            )
            continue
        before = _side(fix, plans.BEFORE, plan, tags)
        after = _side(fix, plans.AFTER, plan, tags)
        judgement = verdicts.judge(before, after)
        entries.append(
            EntryResult(
                fix,
                judgement.verdict,
                judgement.reason,
                judgement.evidence,
                before=before,
                after=after,
            )
        )
    return tuple(entries)


def prove(
    plan: Plan,
    runner: Runner,
    *,
    out_dir: Path,
    implementation: str,
    history_file: str,
    started: float,
    clock: Callable[[], float] = time.monotonic,
) -> Outcome:
    """Run every tag once, judge every fix; `started` is the clock when work began."""
    tags: dict[str, tuple[TagOutcome, dict[str, object] | None]] = {}
    for tag_run in plan.runs:
        if tag_run.skipped is not None:
            tags[tag_run.tag] = (
                TagOutcome(tag_run, None, f"not run: {tag_run.skipped}"),
                None,
            )
            continue
        try:
            report = runner(run_of(plan, tag_run, out_dir))
            document = reading.read(report)
        except ConformanceError as exc:
            tags[tag_run.tag] = (TagOutcome(tag_run, None, _error(exc)), None)
        else:
            tags[tag_run.tag] = (TagOutcome(tag_run, str(report), None), document)
    return Outcome(
        plan=plan,
        tags=tuple(outcome for outcome, _ in tags.values()),
        entries=judge_all(plan, tags),
        wall_seconds=clock() - started,
        implementation=implementation,
        history_file=history_file,
    )
