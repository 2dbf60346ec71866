"""Experiment-level probes: whether the cluster is fit to experiment on.

The steady-state hypothesis of every experiment asks these before and after
the method: the node is Ready, cluster DNS runs, and the chaos instance's
controller runs. After a fault the hypothesis is about recovery, not about the
instant the method ends: each probe waits until its state holds, within a
named bound, and otherwise fails with what it expected and what it last saw
(`Unexpected`: the journal and the report quote it). The bound is, first found:
the clause's own (`within_seconds`, the probe's argument in the document), the
experiment's declared recovery time (`recoverySeconds` in its `wpc`
extension), the probe's default; each multiplied by `wpc_timeout_scale`.

Before the method, the same wait keeps an experiment from starting while the
previous experiment's aftermath lasts (a controller still restarting after it
lost the API server): a wait there is recorded (`Session.waits`), drawn on the
timeline and told in the steady state's details, so the aftermath is seen as
such rather than reported as this experiment's error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any
from typing import TypeVar

from chaos import sessions
from chaos.activities import activity
from chaos.controller import pods as controller_pods
from chaos.errors import Unexpected
from conformance.harness.cluster.timeouts import Timeouts
from plumbing.errors import WaitTimeout
from plumbing.waiting import NotYet
from plumbing.waiting import describe_observation

logger = logging.getLogger(__name__)

__all__ = ["cluster_is_healthy", "controller_is_available"]

T = TypeVar("T")

HEALTHY_WITHIN_SECONDS = 120.0
"""How long the cluster may take to be healthy again before the hypothesis fails.

A node fault leaves its mark after the experiment that caused it has passed: after
`apiserver-unavailable`, CoreDNS (whose readiness follows its API watch) was
unavailable for the next four experiments' first look (`make chaos`, 2026-11-24).
The hypothesis is about a healthy cluster, not about the instant of one look."""

AVAILABLE_WITHIN_SECONDS = Timeouts.controller_ready
"""How long the controller may take to be available again: as long as the harness
gives an instance after install or restart. A point check failed
`controller-cut-off-from-apiserver` (init-less) on a fresh machine, where the
controller was still coming back when the method ended."""

AVAILABLE_CONSECUTIVE = 3
"""Polls in a row that must see the controller available: a crash-looping
controller is Ready for an instant between two restarts."""


def bound(
    session: sessions.Session, default: float, within_seconds: float | None
) -> tuple[float, str]:
    """The wait's budget in seconds, scaled, and where it comes from (for messages)."""
    if within_seconds is not None:
        seconds, source = float(within_seconds), "the clause's bound"
    elif session.declaration.recovery_seconds is not None:
        seconds, source = (
            session.declaration.recovery_seconds,
            "the experiment's recovery time",
        )
    else:
        seconds, source = default, "the probe's default"
    scale = session.settings.timeout_scale
    return seconds * scale, f"{source}, {seconds:g} s x timeout scale {scale:g}"


def await_steady(
    session: sessions.Session,
    check: Callable[[], T | NotYet],
    *,
    describe: str,
    default: float,
    within_seconds: float | None,
    consecutive: int = 1,
) -> T:
    """Wait until `check` holds within the bound; Unexpected with the evidence if not.

    A wait before the method (the state did not hold at the first look) is
    recorded in the session with what was first seen.
    """
    timeout, source = bound(session, default, within_seconds)
    started = time.time()
    first: list[str] = []

    def observed() -> T | NotYet:
        result = check()
        if not result and not first:
            first.append(describe_observation(result))
        return result

    try:
        found = sessions.poll(
            session,
            observed,
            timeout=timeout,
            describe=describe,
            consecutive=consecutive,
        )
    except WaitTimeout as exc:
        raise Unexpected(
            f"expected {describe} within {timeout:g} s ({source}); "
            f"last observed: {exc.last_observed}"
        ) from exc
    if first and session.phase in (sessions.BEFORE, sessions.ENDED):
        session.waited(f"waited for {describe} (first observed: {first[0]})", started)
    return found


@activity
def cluster_is_healthy(
    within_seconds: float | None = None, configuration: dict[str, Any] | None = None
) -> bool:
    """Every node is Ready and CoreDNS has all its replicas available (waits, bounded)."""
    session = sessions.current(configuration)

    def healthy() -> bool | NotYet:
        problem = _health_problem(session)
        return True if problem is None else NotYet(problem)

    return await_steady(
        session,
        healthy,
        describe="every node Ready and CoreDNS available",
        default=HEALTHY_WITHIN_SECONDS,
        within_seconds=within_seconds,
    )


def _health_problem(session: sessions.Session) -> str | None:
    """What is unhealthy now, or None."""
    from kubernetes import client

    nodes = session.clients.core.list_node().items
    not_ready = [
        n.metadata.name
        for n in nodes
        if not any(
            c.type == "Ready" and c.status == "True" for c in n.status.conditions or []
        )
    ]
    apps = client.AppsV1Api(session.clients.api)
    dns = apps.read_namespaced_deployment("coredns", "kube-system")
    ready = dns.status.available_replicas if dns.status else 0
    wanted = (dns.spec.replicas if dns.spec else None) or 1
    if not nodes:
        return "no nodes"
    if not_ready or (ready or 0) < wanted:
        return f"nodes not ready {not_ready}; CoreDNS available {ready or 0}/{wanted}"
    return None


@activity
def controller_is_available(
    within_seconds: float | None = None, configuration: dict[str, Any] | None = None
) -> bool:
    """The chaos instance's controller has exactly one running, ready pod (waits, bounded)."""
    return await_controller(sessions.current(configuration), within_seconds)


def controller_is_back(session: sessions.Session) -> str:
    """After the rollbacks: "" once the controller is available again, else why not.

    The control's last look, so that a controller that went down after the
    second hypothesis (while the rollbacks ran) is this experiment's finding,
    not the next experiment's error.
    """
    try:
        await_controller(session, None)
    except Unexpected as exc:
        return f"after the rollbacks: {exc}"
    return ""


def await_controller(session: sessions.Session, within_seconds: float | None) -> bool:
    """Wait (bounded) until the instance's controller has one running, ready pod."""

    def available() -> bool | NotYet:
        pods = controller_pods.listed(session)
        ready = [p for p in pods if controller_pods.ready(p)]
        return len(ready) == 1 or NotYet(controller_pods.health(pods))

    return await_steady(
        session,
        available,
        describe=(
            f"exactly one running, ready controller pod in {session.instance.namespace}"
        ),
        default=AVAILABLE_WITHIN_SECONDS,
        within_seconds=within_seconds,
        consecutive=AVAILABLE_CONSECUTIVE,
    )
