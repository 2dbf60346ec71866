"""The result words of a run: PASS, FAIL or INCOMPLETE, judged on what was claimed.

An implementation claims features (and layouts); the suite skips the tests of
the rest as "not claimed". Those skips say nothing against the implementation,
so they never turn a pass into anything else. Over the claimed items only:

    FAIL        a claimed item failed (the implementation did something the spec
                forbids), or the layouts differed where no divergence is declared;
    INCOMPLETE  nothing failed, but a claimed item did not run to a verdict: a
                harness error, a skip other than "not claimed", or nothing
                claimed ran at all;
    PASS        every claimed item passed.

The same words are defined in conformance/SPEC.md ("Reports and result words")
and docs/vendors.md. Reports written before a record knew whether it was
claimed tell it by the skip reason, which the plugin has always written as
`UNCLAIMED` followed by the features.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from conformance.report.items.outcomes import Outcome

PASS = "PASS"
FAIL = "FAIL"
INCOMPLETE = "INCOMPLETE"
WORDS = (PASS, FAIL, INCOMPLETE)
MEANINGS = {
    PASS: "every claimed item passed",
    FAIL: "a claimed item failed or the layouts differed undeclared",
    INCOMPLETE: "nothing failed, but a claimed item did not run to a verdict",
}
"""Each word in one phrase, for the pages and tables that show it."""
UNCLAIMED = "implementation does not claim"
"""How every "not claimed" skip reason starts (`conformance.plugin.selection.collection`)."""


def word(
    claimed: Iterable[Outcome], *, divergences: int = 0, interrupted: bool = False
) -> str:
    """The result word for the outcomes of the claimed items (and undeclared divergences).

    An interrupted run is never PASS: what did not run was not judged.
    """
    seen = set(claimed)
    if Outcome.FAILED in seen or divergences:
        return FAIL
    if interrupted or not seen or seen != {Outcome.PASSED}:
        return INCOMPLETE
    return PASS


def is_claimed(test: Mapping[str, Any]) -> bool:
    """Whether a report's test entry was claimed: its `claimed`, else its skip reason."""
    recorded = test.get("claimed")
    if isinstance(recorded, bool):
        return recorded
    return not (
        test["outcome"] == Outcome.SKIPPED.value
        and str(test.get("message", "")).startswith(UNCLAIMED)
    )


def of_document(document: Mapping[str, Any]) -> str:
    """A report's word: its `verdict`, or for an older report the one it would have."""
    recorded = document.get("verdict")
    if recorded in WORDS:
        return str(recorded)
    return word(
        (
            Outcome(t["outcome"])
            for t in document["tests"]
            if t["kind"] == "scenario" and is_claimed(t)
        ),
        divergences=int(document["summary"].get("divergenceFailures", 0)),
        interrupted=bool(document.get("interrupted")),
    )
