"""The text `history run` prints: the plan (`--plan`), then each fix's verdict.

Plain fixed-width text, made from the plan and the outcome alone, so `--plan`
and a finished run print the same tags, substitutions and exclusions.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence

from conformance.spec.history import Fix
from wpc.history.plans import AFTER
from wpc.history.plans import BEFORE
from wpc.history.plans import Plan
from wpc.history.results import COUNTING
from wpc.history.results import EntryResult
from wpc.history.results import Outcome
from wpc.history.verdicts import SideResult


def columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as left-aligned columns two spaces apart, trailing space cut."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def wall_time(seconds: float) -> str:
    """`12 min 05 s` / `42 s`."""
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def killers(fix: Fix) -> str:
    """The scenario's file and test, and/or `chaos <experiment>`."""
    named = [str(fix.scenario).rsplit("/", 1)[-1]] if fix.scenario else []
    if fix.experiment is not None:
        layouts = (
            f" [{', '.join(fix.experiment.layouts)}]" if fix.experiment.layouts else ""
        )
        named.append(f"chaos {fix.experiment.name}{layouts}")
    return " + ".join(named)


def _tag_cell(plan: Plan, entry: str, side: str) -> str:
    needed, used = plan.needed(entry, side), plan.run_of(entry, side).tag
    return needed if needed == used else f"{needed} -> {used}"


def plan_text(plan: Plan, commands: Mapping[str, str]) -> str:
    """What `history run` would build and run, and what it leaves out, and why."""
    history = plan.history
    lines = [
        f"history: {history.repository} {history.from_tag}..{history.to_tag}; "
        f"source {plan.source}; layout {plan.layout}; "
        f"substitute built tags: {'yes' if plan.substitute_built else 'no'}",
        "",
        f"fixes that run ({len(plan.selection.runnable)}): before = last tag with the "
        f"bug (must fail), after = first tag without it (must pass); a -> b: b stands in",
    ]
    lines += columns(
        [
            ("  id", "before", "after", "killer"),
            *(
                (
                    f"  {fix.id}",
                    _tag_cell(plan, fix.id, BEFORE),
                    _tag_cell(plan, fix.id, AFTER),
                    killers(fix),
                )
                for fix in plan.selection.runnable
            ),
        ]
    )
    if plan.substitutions:
        lines += [
            "",
            "substitutions (already built, same side of the fix by git ancestry):",
        ]
        lines += [
            f"  {s.entry} {s.side}: {s.needed} -> {s.used} ({s.distance} commits apart): "
            f"{s.reason}"
            for s in plan.substitutions
        ]
    to_build = [r for r in plan.runs if not r.cached and r.skipped is None]
    lines += [
        "",
        f"tags ({len(plan.runs)} runs, {len(to_build)} to build first, about 10-20 min "
        f"each here):",
    ]
    for run in plan.runs:
        state = "built" if run.cached else "to build"
        if run.skipped is not None:
            state = "not run"
        lines.append(
            f"  {run.tag} ({run.commit[:12]}, {state}): {', '.join(run.entries)}"
        )
        lines.append(f"    {run.skipped or commands.get(run.tag, '')}")
        if run.blocked and run.skipped is None:
            lines.append(
                f"    (not selected: {', '.join(run.blocked)}, whose other tag cannot "
                f"be built)"
            )
    if plan.selection.excluded:
        lines += ["", f"fixes that do not run ({len(plan.selection.excluded)}):"]
        lines += columns(
            [(f"  {e.fix.id}", e.verdict, e.reason) for e in plan.selection.excluded]
        )
    return "\n".join(lines) + "\n"


def _side_cell(side: SideResult | None) -> str:
    if side is None:
        return "-"
    if side.report is None:
        return f"{side.tag}: no report"
    return f"{side.tag} " + " ".join(
        f"{name}={o.outcome}" for name, o in side.layouts.items()
    )


def _sides(entry: EntryResult) -> tuple[str, str]:
    """The before and after cells: the scenario's, else the experiment's (chaos)."""
    if entry.before is None and entry.experiment is not None:
        killer = entry.experiment
        return (
            f"chaos {_side_cell(killer.before)}",
            f"chaos {_side_cell(killer.after)}",
        )
    return _side_cell(entry.before), _side_cell(entry.after)


def table(outcome: Outcome, result_path: str) -> str:
    """Each fix's verdict with both sides, the evidence, the score and the wall time."""
    rows = [("id", "verdict", "before", "after")]
    rows += [(e.fix.id, e.verdict, *_sides(e)) for e in outcome.entries]
    lines = columns(rows)
    lines += ["", "why:"]
    for e in outcome.entries:
        lines.append(f"  {e.fix.id}: {e.reason}")
        if e.evidence:
            lines.append(f"    evidence: {e.evidence}")
        for side in (e.before, e.after):
            if side is not None and side.report:
                lines.append(f"    {side.side} report: {side.report}")
        if e.experiment is not None:
            killer = e.experiment
            lines.append(
                f"    experiment {killer.name}: {killer.verdict}; before "
                f"{_side_cell(killer.before)}; after {_side_cell(killer.after)}"
            )
            for side in (killer.before, killer.after):
                if side.report:
                    lines.append(f"    {side.side} chaos report: {side.report}")
    score = outcome.score
    lines += [
        "",
        f"historical mutation score: {score.text()} fixed bugs caught / in scope",
        f"  ({COUNTING})",
        f"wall time: {wall_time(outcome.wall_seconds)}",
        f"result: {result_path}",
    ]
    return "\n".join(lines) + "\n"
