"""The ConformanceReport's `historicalMutationScore`, read from a HistoryResult.

The synthetic mutation score (`mutation`) says how many broken variants of the
reference the suite kills; the historical one says how many bugs upstream Argo
Workflows really shipped and fixed it catches: fixed bugs caught / fixed bugs
in scope, measured by `make history` (`wpc.history`) into
`reports/history/history-result.yaml`. A conformance run given
`--history-result` copies the score, every fix's verdict, and the code and
date it was measured on (`measuredOn`, `conformance.report.scores.provenance`): it is
not re-measured by the run, so a copy on other code or another spec is marked
`stale` with the reason, as the synthetic score's is.

The score is the suite's, measured on upstream's tags, so unlike the synthetic
one it is not refused for another implementation; the block names the
implementation the tags were built with. The HistoryResult's schema lives
beside the ConformanceReport's for the same reason as the negative controls':
the writer (`wpc.history`) sits above this layer and validates
against this file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.report.scores import provenance
from conformance.report.scores import schemafiles

SCHEMA_PATH = Path(__file__).parents[2] / "history-result.schema.json"
KIND = "HistoryResult"
API_VERSION = "wpc.dev/v1alpha1"


def validate(document: Any) -> None:
    """Raise jsonschema.ValidationError unless `document` is a HistoryResult."""
    schemafiles.validate(document, SCHEMA_PATH)


def load(path: Path) -> dict[str, Any]:
    """Read and validate a HistoryResult; DataError names the file and the key."""
    return schemafiles.load(path, SCHEMA_PATH, "history result")


def slot(
    document: dict[str, Any], *, source: Path, current: provenance.Provenance
) -> dict[str, Any]:
    """The ConformanceReport's `historicalMutationScore` from a validated HistoryResult.

    `current` is this run's code and spec: the copy is `stale` (with a reason
    naming both sides) unless the score was measured on the same ones.
    """
    score = document["score"]
    measured = document["measuredOn"]
    reason = provenance.stale_reason(provenance.Provenance.from_json(measured), current)
    return {
        "caught": score["caught"],
        "inScope": score["inScope"],
        "score": score["score"],
        "counting": score["counting"],
        "verdicts": [
            {"id": e["id"], "verdict": e["verdict"]} for e in document["entries"]
        ],
        "selected": document["selected"],
        "implementation": document["implementation"],
        "suiteCommit": document["suite"]["commit"],
        "date": document["date"],
        "source": str(source),
        "measuredOn": measured,
        "stale": reason is not None,
        "staleReason": reason,
    }


def read(path: Path, *, current: provenance.Provenance) -> dict[str, Any]:
    """`load` then `slot`: the historicalMutationScore a run copies."""
    return slot(load(path), source=path, current=current)


def describe(score: dict[str, Any]) -> str:
    """One line for people: caught / in scope, when and on what it was measured."""
    ratio = "-" if score["score"] is None else f"{100 * score['score']:.1f}%"
    measured = provenance.Provenance.from_json(score["measuredOn"]).label()
    line = (
        f"{score['caught']}/{score['inScope']} upstream fixes caught ({ratio}); "
        f"measured {score['date']} on {measured}"
    )
    if score["stale"]:
        return f"{line}: STALE ({score['staleReason']})"
    return f"{line}: fresh"
