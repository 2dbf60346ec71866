"""The chaos instance's controller pods, as the fault probes compare them."""

from __future__ import annotations

from typing import Any

from chaos.sessions import Session

BEFORE = "controller-pods-before"
"""Memo key: the uids of the controller pods when the fault began."""


def listed(session: Session) -> list[Any]:
    """The instance's controller pods now (terminating ones included)."""
    selector = session.profile.controller_selector(session.instance)
    pods: list[Any] = session.clients.core.list_namespaced_pod(
        session.instance.namespace, label_selector=selector
    ).items
    return pods


def describe(pods: list[Any]) -> str:
    """`name (uid, phase[, terminating])` per pod."""
    return (
        ", ".join(
            f"{p.metadata.name} ({p.metadata.uid}, {p.status.phase}"
            + (", terminating)" if p.metadata.deletion_timestamp else ")")
            for p in pods
        )
        or "no pods"
    )


def health(pods: list[Any]) -> str:
    """`name (phase, ready r/n, restarts k[, terminating])` per pod: what availability sees."""
    described = []
    for p in pods:
        statuses = p.status.container_statuses or []
        described.append(
            f"{p.metadata.name} ({p.status.phase}, ready "
            f"{sum(1 for s in statuses if s.ready)}/{len(statuses)}, restarts "
            f"{sum(s.restart_count or 0 for s in statuses)}"
            + (", terminating)" if p.metadata.deletion_timestamp else ")")
        )
    return ", ".join(described) or "no pods"


def ready(pod: Any) -> bool:
    """Running, not terminating, every container ready."""
    return (
        pod.status.phase == "Running"
        and not pod.metadata.deletion_timestamp
        and all(s.ready for s in pod.status.container_statuses or [])
    )


def remember(session: Session) -> list[Any]:
    """Note the current pods' uids as the ones a fault must replace; return them."""
    pods = listed(session)
    session.memo[BEFORE] = {p.metadata.uid: p.metadata.name for p in pods}
    return pods
