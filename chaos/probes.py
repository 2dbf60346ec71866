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

logger = logging.getLogger(__name__)

__all__ = ["cluster_is_healthy", "controller_is_available"]


@activity
def cluster_is_healthy(configuration: dict[str, Any] | None = None) -> bool:
    """Every node is Ready and CoreDNS has all its replicas available."""
    from kubernetes import client

    session = sessions.current(configuration)
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
    available = (ready or 0) >= ((dns.spec.replicas if dns.spec else None) or 1)
    if not_ready or not available:
        logger.warning(
            "[%s] Cluster unhealthy: nodes not ready %s, CoreDNS available %s.",
            session.experiment,
            not_ready,
            available,
        )
    return bool(nodes) and not not_ready and available


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
