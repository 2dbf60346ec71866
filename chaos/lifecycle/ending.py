"""Ending an experiment: let the system settle, stop the recording, remove the namespace.

The recording must end *before* the namespace is deleted: deleting it deletes
every workflow and pod, after which no leftover could be seen, and the
cleanup invariants judge leftovers. It must also run long enough after the
workflows end for a leak to show: `settle()` waits until the namespace is
clean (every workflow completed, every pod labelled completed or gone without
the status finalizer, no task result left), but no longer than the
invariants' grace plus a margin, so a healthy run stops early and a leaking
one is recorded past its grace.
"""

from __future__ import annotations

import logging
from typing import Any

from chaos import sessions
from chaos.argo import STATUS_FINALIZER
from chaos.argo import WORKFLOW_TERMINAL
from chaos.sessions import Session
from conformance import contract
from conformance.harness.stage import namespaces
from plumbing.errors import WaitTimeout
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

SETTLE_MARGIN_SECONDS = 5.0
"""Recorded past the longest grace, so a leak is over its grace when judged."""


def _unclean(session: Session) -> list[str]:
    """What still keeps the namespace from being clean (empty when clean)."""
    clients, namespace = session.clients, session.namespace
    left: list[str] = []
    for wf in clients.custom.list_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        namespace,
        contract.WORKFLOWS,
    )["items"]:
        phase = (wf.get("status") or {}).get("phase")
        if phase not in WORKFLOW_TERMINAL:
            left.append(f"workflow {wf['metadata']['name']} is {phase or 'new'}")
    for pod in clients.core.list_namespaced_pod(
        namespace, label_selector=contract.WORKFLOW_LABEL
    ).items:
        labels = pod.metadata.labels or {}
        if STATUS_FINALIZER in (pod.metadata.finalizers or []):
            left.append(f"pod {pod.metadata.name} holds the status finalizer")
        elif labels.get(contract.COMPLETED_LABEL) != "true":
            left.append(f"pod {pod.metadata.name} is not labelled completed")
    results: dict[str, Any] = clients.custom.list_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        namespace,
        contract.TASK_RESULTS,
    )
    left += [f"task result {r['metadata']['name']}" for r in results["items"]]
    return left


def settle(session: Session) -> list[str]:
    """Wait (bounded) for the namespace to be clean; return what was left."""
    limits = session.declaration.invariant_settings
    budget = (
        max(
            limits.finalizer_grace_seconds,
            limits.orphan_grace_seconds,
            limits.taskresult_grace_seconds,
        )
        + SETTLE_MARGIN_SECONDS
    )

    def clean() -> bool | NotYet:
        left = _unclean(session)
        return not left or NotYet("; ".join(left))

    try:
        sessions.poll(
            session,
            clean,
            timeout=budget,
            describe=f"namespace {session.namespace} to be clean",
        )
        return []
    except WaitTimeout as exc:
        logger.warning("[%s] Not clean: %s", session.experiment, exc.last_observed)
        return [exc.last_observed]


def stop_recording(session: Session) -> None:
    """Stop the recorder (RecorderError if a watch failed: the history has a hole)."""
    recorder, session.recorder = session.recorder, None
    if recorder is not None:
        recorder.stop()
        logger.info("[%s] Recording stopped.", session.experiment)


def delete_namespace(session: Session) -> None:
    """Delete the experiment's namespace and wait until it is gone."""
    name, session.namespace = session.namespace, ""
    if name:
        namespaces.delete(
            session.clients,
            name=name,
            session_id=session.run_id,
            timeouts=session.timeouts,
        )


def safety_net(session: Session) -> list[str]:
    """Undo what the rollbacks left undone; return what went wrong doing it."""
    errors: list[str] = []
    steps = [
        *((f"restore {label}", undo) for label, undo in session.restorers.items()),
        ("stop the recording", lambda: stop_recording(session)),
        ("delete the namespace", lambda: delete_namespace(session)),
    ]
    for what, step in steps:
        try:
            step()
        except Exception as exc:
            logger.error("[%s] Could not %s: %s", session.experiment, what, exc)
            errors.append(f"could not {what}: {type(exc).__name__}: {exc}")
    session.restorers.clear()
    return errors
