"""Invariants judged at the end of the history: what a finished workflow leaves.

Each looks at the last observed state of the objects still present when the
history ends, and allows a grace period after the workflow ended (its first
terminal version, or its deletion, whichever came first).
"""

from __future__ import annotations

from chaos.argo import STATUS_FINALIZER
from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.replay import Track
from chaos.invariants.replay import owning_workflow
from chaos.invariants.replay import tracks
from chaos.invariants.settings import InvariantSettings
from chaos.invariants.violations import Evidence
from chaos.invariants.violations import Violation

NO_FINALIZER_AFTER_COMPLETION = "no-finalizer-after-completion"
NO_ORPHAN_PODS = "no-orphan-pods"
TASKRESULTS_CLEANED_UP = "taskresults-cleaned-up"


def _ended(workflow: Track) -> HistoryRecord | None:
    ends = [r for r in (workflow.terminal(), workflow.gone) if r is not None]
    return min(ends, key=lambda r: r.line) if ends else None


def _how(workflow: Track, ended: HistoryRecord) -> str:
    if ended is workflow.gone:
        return f"workflow {workflow.first.name} was deleted"
    return f"workflow {workflow.first.name} became {ended.phase}"


def _leftovers(history: History, kind: str) -> list[tuple[Track, Track, HistoryRecord]]:
    """(object, its workflow, when that ended) for each object left at the end."""
    workflows = tracks(history, "Workflow")
    left: list[tuple[Track, Track, HistoryRecord]] = []
    for owned in tracks(history, kind):
        if owned.gone is not None:
            continue
        workflow = owning_workflow(owned, workflows)
        ended = _ended(workflow) if workflow is not None else None
        if workflow is not None and ended is not None:
            left.append((owned, workflow, ended))
    return left


def no_finalizer_after_completion(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """No pod still holds the status finalizer once its workflow has ended."""
    grace = settings.finalizer_grace_seconds
    found: list[Violation] = []
    for pod, workflow, ended in _leftovers(history, "Pod"):
        late = history.end - ended.received
        if STATUS_FINALIZER not in pod.last.finalizers or late <= grace:
            continue
        found.append(
            Violation(
                NO_FINALIZER_AFTER_COMPLETION,
                pod.ref,
                f"still holds {STATUS_FINALIZER} {late:.1f} s after "
                f"{_how(workflow, ended)} (grace {grace:g} s)",
                Evidence.of(ended, pod.last),
            )
        )
    return found


def no_orphan_pods(history: History, settings: InvariantSettings) -> list[Violation]:
    """No pod outlives the deletion of its workflow by more than the grace.

    A pod whose workflow never appears in the history is not judged: it may
    predate the recording, and nothing here says what happened to it.
    """
    grace = settings.orphan_grace_seconds
    found: list[Violation] = []
    for pod, workflow, _ in _leftovers(history, "Pod"):
        if workflow.gone is None:
            continue
        late = history.end - workflow.gone.received
        if late <= grace:
            continue
        found.append(
            Violation(
                NO_ORPHAN_PODS,
                pod.ref,
                f"still exists {late:.1f} s after workflow {workflow.first.name} "
                f"was deleted (grace {grace:g} s)",
                Evidence.of(workflow.gone, pod.last),
            )
        )
    return found


def taskresults_cleaned_up(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """No WorkflowTaskResult outlives its workflow's completion or deletion."""
    grace = settings.taskresult_grace_seconds
    found: list[Violation] = []
    for result, workflow, ended in _leftovers(history, "WorkflowTaskResult"):
        late = history.end - ended.received
        if late <= grace:
            continue
        found.append(
            Violation(
                TASKRESULTS_CLEANED_UP,
                result.ref,
                f"still exists {late:.1f} s after {_how(workflow, ended)} "
                f"(grace {grace:g} s)",
                Evidence.of(ended, result.last),
            )
        )
    return found
