"""The suite's two scores side by side: how sharp the suite that judged a report is.

The synthetic score (`mutation`: MUST clauses killed by broken variants of
the reference / MUST clauses, from a NegativeControlsReport) and the
historical one (`historical`: upstream's fixed bugs caught / in scope, from a
HistoryResult) answer the same question two ways, so the report shows them
together: one line each, with the code and spec it was measured on and
whether that is this run's (`fresh` or `STALE`). A score the report does not
carry gets a line too, saying how to give it, so a missing score is never
read as a zero. The HTML page and the terminal summary both print these lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.report.scores import historical
from conformance.report.scores import mutation

SYNTHETIC_MISSING = (
    "mutation score (synthetic, MUST clauses killed / MUST clauses): not carried; "
    "--negative-controls gives it (a NegativeControlsReport of this implementation's "
    "broken variants: the reference's)"
)
HISTORICAL_MISSING = (
    "historical mutation score (upstream's fixed bugs caught / in scope): not "
    "carried; --history-result gives it (a HistoryResult of `make history`)"
)


def lines(
    synthetic: Mapping[str, Any] | None, upstream: Mapping[str, Any] | None
) -> list[str]:
    """The synthetic score's line, then the historical one's."""
    return [
        mutation.describe(dict(synthetic)) if synthetic else SYNTHETIC_MISSING,
        f"historical mutation score {historical.describe(dict(upstream))}"
        if upstream
        else HISTORICAL_MISSING,
    ]


def of_document(document: Mapping[str, Any]) -> list[str]:
    """Both lines of a ConformanceReport document."""
    return lines(document.get("mutationScore"), document.get("historicalMutationScore"))
