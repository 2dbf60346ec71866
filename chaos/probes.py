"""Experiment-level probes: whether the cluster is fit to experiment on.

The steady-state hypothesis of every experiment asks these before and after
the method: the node is Ready, cluster DNS runs, and the chaos instance's
controller runs. Each returns a bool for the hypothesis's tolerance.
"""

from __future__ import annotations

import logging
from typing import Any

from chaos import sessions
from chaos.activities import activity
from conformance.harness.watching import until
from plumbing.errors import WaitTimeout
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

__all__ = ["cluster_is_healthy", "controller_is_available"]


HEALTHY_WITHIN_SECONDS = 120.0
"""How long the cluster may take to be healthy again before the hypothesis fails.

A node fault leaves its mark after the experiment that caused it has passed: after
`apiserver-unavailable`, CoreDNS (whose readiness follows its API watch) was
unavailable for the next four experiments' first look (`make chaos`, 2026-11-24).
The hypothesis is about a healthy cluster, not about the instant of one look."""


@activity
def cluster_is_healthy(configuration: dict[str, Any] | None = None) -> bool:
    """Every node is Ready and CoreDNS has all its replicas available (waits, bounded)."""
    session = sessions.current(configuration)

    def healthy() -> bool | NotYet:
        problem = _health_problem(session)
        return True if problem is None else NotYet(problem)

    try:
        until(
            healthy,
            timeout=HEALTHY_WITHIN_SECONDS * session.settings.timeout_scale,
            interval=session.timeouts.poll_interval,
            describe="every node Ready and CoreDNS available",
        )
    except WaitTimeout as exc:
        logger.warning(
            "[%s] Cluster unhealthy: %s", session.experiment, exc.last_observed
        )
        return False
    return True


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
def controller_is_available(configuration: dict[str, Any] | None = None) -> bool:
    """The chaos instance's controller has exactly one running, ready pod."""
    session = sessions.current(configuration)
    selector = session.profile.controller_selector(session.instance)
    pods = session.clients.core.list_namespaced_pod(
        session.instance.namespace, label_selector=selector
    ).items
    ready = [
        p
        for p in pods
        if p.status.phase == "Running"
        and not p.metadata.deletion_timestamp
        and all(s.ready for s in p.status.container_statuses or [])
    ]
    return len(ready) == 1
