"""The ConformanceReport's `mutationScore`, read from a NegativeControlsReport.

The mutation score (MUST clauses with a killing test / MUST clauses) is measured
by the negative controls (`make negative-controls`, `tests/negative/`), which run
the suite against broken variants of one implementation and write
`reports/negative-controls.yaml`. A conformance run given `--negative-controls`
copies that score into its own report, so one document says both how the
implementation fared and how sharp the suite that judged it is.

The score belongs to the implementation whose variants were broken (the
`reference` profile): the NegativeControlsReport names it in `implementation`,
and a report without that field (written before it existed) is taken to be the
reference implementation's. A run judging any other implementation refuses the
file instead of borrowing a score that says nothing about it.

The copy keeps what the score is worth: the commit and spec version it was measured
on (`measuredOn`), the faults it did not run and why (`notRun`), and `stale` with a
`staleReason` when this run's code or spec is not the measured one
(`conformance.report.scores.provenance`). A stale score is still copied, and marked: the
reader decides, and the verdict output says STALE next to it.

What a kill is (`counting`) is copied too: `clause-assertion`, a killer's failed
assertion naming the clause (issue 11), or `any-failure` for a NegativeControlsReport
written before, which credited any failure of a killer citing the clause; the
one-line description says which, so a reader never takes one for the other.

The NegativeControlsReport's schema lives here, beside the ConformanceReport's,
because the suite must not import the project's tests; `tests/negative` writes
documents against this same file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.errors import DataError
from conformance.report.scores import provenance
from conformance.report.scores import schemafiles

SCHEMA_PATH = Path(__file__).parents[2] / "negative-controls.schema.json"
ASSUMED_IMPLEMENTATION = "reference"
"""Whose variants a NegativeControlsReport without `implementation` scored."""
CLAUSE_ASSERTION = "clause-assertion"
"""A kill is a killer's failed assertion that names the clause (issue 11)."""
ANY_FAILURE = "any-failure"
"""A kill was any failure of a killer citing the clause (reports before issue 11)."""
COUNTING_WORDS = {
    CLAUSE_ASSERTION: "clause-specific assertions only",
    ANY_FAILURE: "any failure counted, measured before clause-specific counting",
}


def validate(document: Any) -> None:
    """Raise jsonschema.ValidationError unless `document` is a NegativeControlsReport."""
    schemafiles.validate(document, SCHEMA_PATH)


def load(path: Path) -> dict[str, Any]:
    """Read and validate a NegativeControlsReport; DataError names the file."""
    return schemafiles.load(path, SCHEMA_PATH, "negative-controls report")


def _check_implementation(
    document: dict[str, Any], *, source: Path, implementation: str
) -> str:
    scored = str(document.get("implementation", ASSUMED_IMPLEMENTATION))
    if scored != implementation:
        raise DataError(
            f"{source}: the negative controls scored broken variants of {scored!r}, "
            f"but this run judges {implementation!r}; pass --negative-controls only "
            f"with the implementation whose variants were run"
        )
    return scored


def _not_run(entries: list[Any]) -> list[dict[str, Any]]:
    """The `notRun` list with reasons; a bare name (an older report) was deselected."""
    return [
        dict(e)
        if isinstance(e, dict)
        else {"fault": str(e), "reason": "not-selected", "detail": "deselected"}
        for e in entries
    ]


def slot(
    document: dict[str, Any],
    *,
    source: Path,
    implementation: str,
    current: provenance.Provenance,
) -> dict[str, Any]:
    """The ConformanceReport's `mutationScore` from a validated NegativeControlsReport.

    DataError when the negative controls broke another implementation than the one
    this run judges: their score would describe the suite against someone else.
    `current` is this run's code and spec: the copy is `stale` (with a reason naming
    both sides) unless the score was measured on the same ones.
    """
    scored = _check_implementation(
        document, source=source, implementation=implementation
    )
    clauses, faults = document["mutationScore"], document["faultScore"]
    measured = document.get("measuredOn")
    reason = provenance.stale_reason(
        provenance.Provenance.from_json(measured) if measured else None, current
    )
    return {
        "killed": clauses["killed"],
        "counting": clauses.get("counting", ANY_FAILURE),
        "total": clauses["total"],
        "score": clauses["score"],
        "killedClauses": list(clauses["killedClauses"]),
        "faults": {
            "killed": faults["killed"],
            "total": faults["total"],
            "survivors": list(faults["survivors"]),
        },
        "implementation": scored,
        "source": str(source),
        "date": document["date"],
        "measuredOn": measured,
        "notRun": _not_run(document["notRun"]),
        "stale": reason is not None,
        "staleReason": reason,
    }


def check(path: Path, *, implementation: str) -> None:
    """DataError unless a run of `implementation` may copy the report at `path`.

    The preflight's question, asked before any cluster work.
    """
    _check_implementation(load(path), source=path, implementation=implementation)


def read(
    path: Path, *, implementation: str, current: provenance.Provenance
) -> dict[str, Any]:
    """`load` then `slot`: the mutationScore of a run judging `implementation`."""
    return slot(load(path), source=path, implementation=implementation, current=current)


def describe(score: dict[str, Any]) -> str:
    """One line for people: the score, what counted as a kill, when and on what code.

    Ends in `STALE (why)` when it no longer describes this run's code or spec,
    `fresh` when it does (nothing for a copy made before staleness was judged).
    """
    faults = score["faults"]
    measured = score.get("measuredOn")
    counting = COUNTING_WORDS.get(str(score.get("counting")))
    line = (
        f"mutation score {score['killed']}/{score['total']} MUST clauses "
        f"({100 * score['score']:.1f}%{'; ' + counting if counting else ''}), "
        f"{faults['killed']}/{faults['total']} faults killed"
    )
    if "notRun" in score:  # absent from copies made before it was kept
        line += f", {len(score['notRun'])} not run"
    line += f"; measured {score['date']}"
    if measured:
        line += f" on {provenance.Provenance.from_json(measured).label()}"
    if score.get("stale"):
        return f"{line}: STALE ({score['staleReason']})"
    return f"{line}: fresh" if "stale" in score else line
