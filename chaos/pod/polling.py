"""Waiting on a step's pod, and the pod a fault remembered.

Every pod probe polls one condition at the session's poll interval within a
named timeout (`sessions.poll`, the one wait of every chaos activity); most poll
the step's newest live pod (`until_pod`), so a probe states only its condition,
its timeout and what it waits for. A probe
that found the pod a fault is about remembers it under the step (`remember`,
with the vulnerable state it is in: `vulnerable`);
later probes read that very pod (`remembered`, `read`), by name and uid, since
a re-created pod reuses neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TypeVar

from kubernetes.client.exceptions import ApiException

from chaos import sessions
from chaos.pod import finding
from chaos.sessions import Session
from conformance.harness import NotYet

T = TypeVar("T")

NOT_FOUND = 404


def live_pod(session: Session, workflow: str, step: str) -> Any | NotYet:
    """The step's newest pod that is not being deleted, or NotYet."""
    found = finding.step_pods(session, workflow, step)
    live = [p for p in found if not p.metadata.deletion_timestamp]
    return live[-1] if live else NotYet(f"no live pod for step {step} yet")


def until_pod(
    session: Session,
    workflow: str,
    step: str,
    condition: Callable[[Any], T | NotYet],
    *,
    timeout: float,
    describe: str,
) -> T:
    """`sessions.poll` of `condition(pod)` on the step's newest live pod, once there is one."""

    def check() -> T | NotYet:
        pod = live_pod(session, workflow, step)
        return pod if isinstance(pod, NotYet) else condition(pod)

    return sessions.poll(session, check, timeout=timeout, describe=describe)


def created_pod(session: Session, workflow: str, step: str) -> Any:
    """The step's newest live pod, once there is one, within `pod_created`."""
    return until_pod(
        session,
        workflow,
        step,
        lambda pod: pod,
        timeout=session.timeouts.pod_created,
        describe=f"a pod for step {step}",
    )


def _key(step: str) -> str:
    """The session memo's key of the step's remembered pod."""
    return f"pod:{step}"


def remember(session: Session, step: str, pod: Any) -> None:
    """Keep the pod's name and uid as the step's pod, for the probes after the fault."""
    session.memo[_key(step)] = (pod.metadata.name, pod.metadata.uid)


def vulnerable(session: Session, activity: str, step: str, pod: Any, text: str) -> str:
    """Remember the step's pod and record the vulnerable state it is in; `text`."""
    remember(session, step, pod)
    session.was_vulnerable(activity, text)
    return text


def remembered(session: Session, step: str) -> tuple[str, str]:
    """The name and uid `remember` kept for the step."""
    name, uid = session.memo[_key(step)]
    return name, uid


def remembered_name(session: Session, step: str) -> str | None:
    """The name `remember` kept for the step; None when no probe kept one."""
    kept = session.memo.get(_key(step))
    return None if kept is None else str(kept[0])


def read(session: Session, name: str) -> Any | None:
    """The pod called `name` now, or None when there is none (404).

    Compare its uid with the remembered one: a pod of that name may be another.
    """
    try:
        return session.clients.core.read_namespaced_pod(name, session.namespace)
    except ApiException as exc:
        if exc.status == NOT_FOUND:
            return None
        raise
