"""The faults a negative-controls measurement did not run, each with why.

A mutation score is read against the faults behind it: 14 of 18 killed means
something else when six more faults exist and were never tried. So the summary
lists every fault the reference implementation knows (`faults.known_names()`)
that this session did not run against the suite, with one reason each:

    not-selected  an active row the session deselected (`-k`)
    pending       the row has no killing test yet (it is also in `faults`, as
                  status pending, and counts as a survivor)
    chaos         only a chaos experiment catches it (`tests/chaos`), outside
                  this suite's score
    no-row        `controls.yaml` has no row for it (the table's own test
                  forbids that; listed rather than silently dropped)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.negative import controls

NOT_SELECTED = "not-selected"
PENDING = "pending"
CHAOS = "chaos"
NO_ROW = "no-row"


def _entry(fault: str, reason: str, detail: str) -> dict[str, Any]:
    return {"fault": fault, "reason": reason, "detail": detail}


def not_run(
    rows: Iterable[controls.Control], *, known: Iterable[str], ran: Iterable[str]
) -> list[dict[str, Any]]:
    """Every fault of `known` or of the table not in `ran`, with its reason, by name.

    `ran`: the faults whose suite run produced a verdict in this session (pending
    rows produce a verdict without a run, so callers leave them out).
    """
    by_fault = {row.fault: row for row in rows}
    done = set(ran)
    found = []
    for fault in sorted(set(known) | set(by_fault)):
        if fault in done:
            continue
        row = by_fault.get(fault)
        if row is None:
            found.append(
                _entry(fault, NO_ROW, "no row in tests/negative/controls.yaml")
            )
        elif row.status == controls.CHAOS:
            found.append(_entry(fault, CHAOS, row.reason))
        elif row.status == controls.PENDING:
            found.append(_entry(fault, PENDING, row.reason))
        else:
            found.append(
                _entry(fault, NOT_SELECTED, "deselected in this session (-k, -m)")
            )
    return found
