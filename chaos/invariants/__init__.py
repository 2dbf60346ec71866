"""Named invariants checked offline over a recorded history.

Each invariant is a pure function ``(History, InvariantSettings) ->
list[Violation]``; `INVARIANTS` names them all, in a stable order that the
CLI and the reports use. What a broken one reports (`violations`) and the
replay of a history into one track per object that they read (`replay`) live
beside them.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping

from chaos.history.records import History
from chaos.invariants import cleanup
from chaos.invariants import outputs
from chaos.invariants import pods
from chaos.invariants import workflows
from chaos.invariants.settings import InvariantSettings
from chaos.invariants.violations import Violation

Invariant = Callable[[History, InvariantSettings], list[Violation]]

INVARIANTS: Mapping[str, Invariant] = {
    workflows.TERMINAL_WITHIN_DEADLINE: workflows.terminal_within_deadline,
    workflows.NODE_PHASES_MONOTONIC: workflows.node_phases_monotonic,
    pods.ONE_LIVE_POD_PER_NODE: pods.one_live_pod_per_node,
    cleanup.NO_FINALIZER_AFTER_COMPLETION: cleanup.no_finalizer_after_completion,
    cleanup.NO_ORPHAN_PODS: cleanup.no_orphan_pods,
    outputs.SUCCEEDED_NODES_HAVE_OUTPUTS: outputs.succeeded_nodes_have_outputs,
    cleanup.TASKRESULTS_CLEANED_UP: cleanup.taskresults_cleaned_up,
}

__all__ = ["INVARIANTS", "Invariant", "InvariantSettings", "check"]


def check(
    history: History,
    settings: InvariantSettings | None = None,
    names: Iterable[str] | None = None,
) -> list[Violation]:
    """Run the named invariants (all by default); unknown names: ValueError."""
    chosen = list(INVARIANTS) if names is None else list(dict.fromkeys(names))
    unknown = [n for n in chosen if n not in INVARIANTS]
    if unknown:
        raise ValueError(f"unknown invariants: {', '.join(unknown)}")
    limits = settings or InvariantSettings()
    return [v for name in chosen for v in INVARIANTS[name](history, limits)]
