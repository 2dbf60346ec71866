"""The text `python -m conformance history` prints: one line per fix, then counts.

Kept apart from the loader so the data's rules and its presentation change
independently; nothing here validates.
"""

from __future__ import annotations

from conformance.spec.history import Fix
from conformance.spec.history import History
from conformance.spec.history import counts

COLUMNS = ("id", "fixed in", "bug in", "area", "scope", "obs", "clause", "scenario")


def _row(fix: Fix) -> tuple[str, ...]:
    scenario = fix.scenario.split("::")[0].rsplit("/", 1)[-1] if fix.scenario else "-"
    if fix.experiment is not None:
        chaos = f"chaos {fix.experiment.name}"
        scenario = chaos if scenario == "-" else f"{scenario} + {chaos}"
    return (
        fix.id,
        fix.first_tag_without_bug,
        fix.last_tag_with_bug,
        fix.area,
        "in" if fix.in_scope else "out",
        "yes" if fix.observable else "no",
        fix.clause or ("(proposed)" if fix.proposed_clause else "-"),
        scenario,
    )


def render(history: History) -> str:
    """A fixed-width table of the fixes and a one-line summary of the counts."""
    rows = [COLUMNS, *(_row(f) for f in history.fixes)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    c = counts(history)
    lines.append("")
    lines.append(
        f"{history.repository} {history.from_tag}..{history.to_tag}: "
        f"{c.total} fixes, {c.in_scope} in scope; of those {c.observable} observable, "
        f"{c.with_scenario} with a scenario, {c.without_scenario} without"
        + (
            f"; {c.with_experiment} named by a chaos experiment"
            if c.with_experiment
            else ""
        )
    )
    return "\n".join(lines) + "\n"
