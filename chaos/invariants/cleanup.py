"""Invariants judged at the end of the history: what a finished workflow leaves.

Each looks at the last observed state of the objects still present when the
history ends, and allows a grace period after the workflow ended (its first
terminal version, or its deletion, whichever came first).
"""

from __future__ import annotations

from collections.abc import Callable

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


def _outliving(
    history: History,
    kind: str,
    invariant: str,
    grace: float,
    *,
    holding: Callable[[Track], str | None] = lambda _: "exists",
    since: Callable[[Track, HistoryRecord], HistoryRecord | None] = lambda _, e: e,
) -> list[Violation]:
    """A violation for each leftover `kind` object outliving its workflow by `grace`.

    `holding` says what the object still does ("exists"; None: nothing to judge);
    `since` is the moment counted from (the workflow's end by default, None: nothing
    to judge).
    """
    found: list[Violation] = []
    for owned, workflow, ended in _leftovers(history, kind):
        start = since(workflow, ended)
        doing = holding(owned)
        if start is None or doing is None:
            continue
        late = history.end - start.received
        if late <= grace:
            continue
        found.append(
            Violation(
                invariant,
                owned.ref,
                f"still {doing} {late:.1f} s after {_how(workflow, start)} "
                f"(grace {grace:g} s)",
                Evidence.of(start, owned.last),
            )
        )
    return found


def no_finalizer_after_completion(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """No pod still holds the status finalizer once its workflow has ended."""
    return _outliving(
        history,
        "Pod",
        NO_FINALIZER_AFTER_COMPLETION,
        settings.finalizer_grace_seconds,
        holding=lambda pod: (
            f"holds {STATUS_FINALIZER}"
            if STATUS_FINALIZER in pod.last.finalizers
            else None
        ),
    )


def no_orphan_pods(history: History, settings: InvariantSettings) -> list[Violation]:
    """No pod outlives the deletion of its workflow by more than the grace.

    A pod whose workflow never appears in the history is not judged: it may
    predate the recording, and nothing here says what happened to it.
    """
    return _outliving(
        history,
        "Pod",
        NO_ORPHAN_PODS,
        settings.orphan_grace_seconds,
        since=lambda workflow, _: workflow.gone,
    )


def taskresults_cleaned_up(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """No WorkflowTaskResult outlives its workflow's completion or deletion."""
    return _outliving(
        history,
        "WorkflowTaskResult",
        TASKRESULTS_CLEANED_UP,
        settings.taskresult_grace_seconds,
    )
