"""We test how the faults a measurement did not run are listed (no cluster):

- every fault the reference implementation knows, or the table names, that did not
  run is listed once, by name, with its reason: a deselected active row is
  not-selected, a pending row pending and a chaos row chaos (each with the table's
  reason), a fault without a row no-row;
- a fault that ran is not listed, and a pending row is listed even when selected
  (its verdict is written without running anything).
"""

from __future__ import annotations

from tests.negative import controls
from tests.negative import unrun
from tests.negative.controls import Control
from tests.negative.controls import TestRef

KILLER = (TestRef("HandshakeMarker", "initless"),)
ROWS = (
    Control("never-ready", ("WPC-A-1",), KILLER, ()),
    Control("slow-heartbeat", ("WPC-A-2",), KILLER, ()),
    Control(
        "leave-finalizer", ("WPC-A-3",), (), (), controls.PENDING, "no test catches it"
    ),
    Control("oom-reported-as-error", ("WPC-A-4",), (), (), controls.CHAOS, "needs OOM"),
)


def test_each_fault_not_run_is_listed_with_why() -> None:
    found = unrun.not_run(
        ROWS,
        known=[
            "never-ready",
            "slow-heartbeat",
            "leave-finalizer",
            "oom-reported-as-error",
            "new-fault",
        ],
        ran=["never-ready"],
    )
    assert found == [
        {
            "fault": "leave-finalizer",
            "reason": "pending",
            "detail": "no test catches it",
        },
        {
            "fault": "new-fault",
            "reason": "no-row",
            "detail": "no row in tests/negative/controls.yaml",
        },
        {"fault": "oom-reported-as-error", "reason": "chaos", "detail": "needs OOM"},
        {
            "fault": "slow-heartbeat",
            "reason": "not-selected",
            "detail": "deselected in this session (-k, -m)",
        },
    ]


def test_nothing_is_listed_when_every_fault_ran() -> None:
    everything = [row.fault for row in ROWS]
    assert unrun.not_run(ROWS, known=everything, ran=everything) == []
