"""Rerun verdicts folded into a `ReportDiff`: which differences are real, which flip.

Against upstream some verdicts flip from run to run (issue 17: two v4.1.2 runs
disagreed on two items), so one run per version cannot tell a regression from
noise. A qualification therefore reruns every differing item against both
versions and hands the verdicts here (pure, no I/O): an item whose every run of
the old version agrees with the old report, and every run of the new version
with the new report, is *confirmed*; one where any version's verdicts disagree
is *flaky*, listed with every verdict and the report it came from, and no
longer makes the diff a regression. A clause regression is flaky when every
item behind it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from wpc.diff.comparing import ABSENT
from wpc.diff.comparing import BAD
from wpc.diff.comparing import CONFIRMED
from wpc.diff.comparing import FLAKY
from wpc.diff.comparing import NOT_RERUN
from wpc.diff.comparing import ClauseChange
from wpc.diff.comparing import Item
from wpc.diff.comparing import ItemChange
from wpc.diff.comparing import ReportDiff
from wpc.diff.comparing import Rerun
from wpc.diff.comparing import RerunRecord

SIDES = ("old", "new")


def classify(change: ItemChange, records: Iterable[RerunRecord]) -> Rerun:
    """The rerun status of one differing item from its rerun records.

    Not rerun unless both versions have at least one verdict (an `absent` item
    is no verdict); confirmed when every verdict of each version equals that
    version's report; flaky otherwise.
    """
    kept = tuple(sorted(records, key=lambda r: (SIDES.index(r.side), r.round)))
    seen = {
        side: [r.outcome for r in kept if r.side == side and r.outcome != ABSENT]
        for side in SIDES
    }
    if not seen["old"] or not seen["new"]:
        return Rerun(NOT_RERUN, kept)
    steady = all(o == change.old.outcome for o in seen["old"]) and all(
        o == change.new.outcome for o in seen["new"]
    )
    return Rerun(CONFIRMED if steady else FLAKY, kept)


def classify_all(
    changes: Sequence[ItemChange],
    records: Mapping[tuple[str, str], Iterable[RerunRecord]],
) -> list[ItemChange]:
    """Copies of `changes`, each with its rerun status from `records` (by key).

    The suite's items and the chaos suite's cases alike; ValueError for records
    of a key that is not one of `changes`.
    """
    for key in records:
        if not any(c.new.key == key for c in changes):
            raise ValueError(f"rerun records for {key}, which is not a differing item")
    return [
        dataclasses.replace(c, rerun=classify(c, records.get(c.new.key, ())))
        for c in changes
    ]


def _clause_is_flaky(
    clause: ClauseChange, items: list[ItemChange], added: list[Item]
) -> bool:
    """True when every item that fails the clause now is a differing item that flipped."""

    def cites(item: Item) -> bool:
        return (
            item.layout == clause.layout
            and clause.clause in item.clauses
            and item.outcome in BAD
        )

    behind = [c for c in items if cites(c.new)]
    if any(cites(i) for i in added):
        return False
    return bool(behind) and all(c.flaky for c in behind)


def apply(
    diff: ReportDiff, records: Mapping[tuple[str, str], Iterable[RerunRecord]]
) -> ReportDiff:
    """A copy of `diff` with each item's rerun status, keyed by (test id, layout).

    Clause changes whose every differing item flipped are marked flaky too;
    items added in the new report have no old verdict to compare and are left
    as they are (a clause they alone regress stays a regression).
    """
    items = classify_all(diff.items, records)
    clauses = [
        dataclasses.replace(c, flaky=_clause_is_flaky(c, items, diff.added))
        if c.kind == "regression"
        else c
        for c in diff.clauses
    ]
    return dataclasses.replace(diff, items=items, clauses=clauses)
