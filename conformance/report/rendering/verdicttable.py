"""The verdict table a run ends with: what people read first (#12).

Per layout, Core and Extended: passed, failed, not claimed (skipped because the
implementation does not claim the feature or layout) and harness errors; then
whether the run was interrupted (never PASS then), the run's result word (PASS,
FAIL, INCOMPLETE: `conformance.report.runs.words`), and each failure and error with
its clauses and one line of evidence. Plain text
from the run's records, so the same table can go into any other output.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.runs import words

COLUMNS = (
    ("passed", Outcome.PASSED),
    ("failed", Outcome.FAILED),
    ("not claimed", Outcome.SKIPPED),
    ("harness error", Outcome.ERROR),
)


def evidence_line(message: str, width: int = 110, naming: str | None = None) -> str:
    """One line of a failure message: pytest's first `E` line, else the first line.

    A test report's message starts with pytest's location and fixture reprs
    under xdist (`[gw2] linux -- Python ...`); the assertion is on the `E` lines.
    With `naming` (a clause ID), the first `E` line that names it comes first: a
    scenario that fails on several clauses lists each on a line of its own, and
    a verdict judged by one clause must quote that clause's line.
    """
    lines = [part.strip() for part in message.splitlines() if part.strip()]
    failing = [line[1:].strip() for line in lines if line.startswith("E ")]
    if naming is not None:
        failing = [line for line in failing if naming in line] + failing
    line = next(iter(failing or lines), "")
    return line if len(line) <= width else line[: width - 3] + "..."


def verdict(counts: dict[Outcome, int], *, interrupted: bool = False) -> str:
    """FAIL, ERROR, PASS, or "-" when nothing ran, for one layout and support.

    An interrupted run is never PASS: what did not run was not judged.
    """
    if counts[Outcome.FAILED]:
        return "FAIL"
    if counts[Outcome.ERROR]:
        return "ERROR"
    if interrupted:
        return "INTERRUPTED"
    return "PASS" if counts[Outcome.PASSED] else "-"


def interruption(block: Mapping[str, Any]) -> str:
    """One line on an interrupted run (the report's `interrupted` block)."""
    ran = len(block["ran"])
    cut = len(block["unfinished"])
    never = max(0, block["collected"] - ran - cut)
    return (
        f"INTERRUPTED ({block['reason']}): {ran} of {block['collected']} tests ran, "
        f"{cut} cut short (not counted), {never} never started"
    )


def table(
    records: Iterable[TestRecord], *, interrupted: Mapping[str, Any] | None = None
) -> list[str]:
    """The verdict table's lines (none without records, unless interrupted)."""
    records = list(records)  # read twice: scenarios, then divergences
    scenarios = [r for r in records if r.kind == "scenario"]
    if not scenarios:
        return [interruption(interrupted)] if interrupted is not None else []
    header = (
        f"{'layout':<10} {'support':<9} "
        + " ".join(f"{name:>13}" for name, _ in COLUMNS)
        + "  verdict"
    )
    lines = [header, "-" * len(header)]
    for layout in sorted({r.layout for r in scenarios}):
        for support in ("Core", "Extended"):
            group = [
                r
                for r in scenarios
                if r.layout == layout and (r.support == "Core") == (support == "Core")
            ]
            counts = {outcome: 0 for _, outcome in COLUMNS}
            for record in group:
                counts[record.outcome] += 1
            lines.append(
                f"{layout:<10} {support:<9} "
                + " ".join(f"{counts[o]:>13}" for _, o in COLUMNS)
                + f"  {verdict(counts, interrupted=interrupted is not None)}"
            )
    if interrupted is not None:
        lines += ["", interruption(interrupted)]
    result = words.word(
        (r.outcome for r in scenarios if r.claimed),
        divergences=sum(
            1 for r in records if r.kind != "scenario" and r.outcome is Outcome.FAILED
        ),
        interrupted=interrupted is not None,
    )
    lines += ["", f"result: {result} ({words.MEANINGS[result]})"]
    problems = [r for r in records if r.outcome in (Outcome.FAILED, Outcome.ERROR)]
    if problems:
        lines.append("")
        lines.append("failures and harness errors:")
        for record in sorted(problems, key=lambda r: (r.layout, r.short_name)):
            kind = "FAILED" if record.outcome is Outcome.FAILED else "ERROR "
            clauses = ",".join(record.clauses) or "-"
            lines.append(
                f"  {kind} [{record.layout}] {record.short_name} ({clauses}): "
                f"{evidence_line(record.message) or '(no message)'}"
            )
    return lines
