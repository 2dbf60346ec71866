from __future__ import annotations

import pytest

from chaos.invariants import INVARIANTS
from chaos.invariants import check
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod
from tests.chaos.histories import workflow


def test_all_seven_invariants_are_named() -> None:
    assert list(INVARIANTS) == [
        "terminal-within-deadline",
        "node-phases-monotonic",
        "one-live-pod-per-node",
        "no-finalizer-after-completion",
        "no-orphan-pods",
        "succeeded-nodes-have-outputs",
        "taskresults-cleaned-up",
    ]


def test_check_runs_the_chosen_invariants_only() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a"))
    b.at(2).add("ADDED", pod("wf-b"))
    history = b.build()

    everything = check(history)
    chosen = check(history, names=["one-live-pod-per-node"])

    assert {v.invariant for v in everything} == {
        "terminal-within-deadline",
        "one-live-pod-per-node",
    }
    assert [v.invariant for v in chosen] == ["one-live-pod-per-node"]


def test_an_unknown_invariant_is_refused() -> None:
    with pytest.raises(ValueError, match="no-such"):
        check(HistoryBuilder().build(), names=["no-such"])
