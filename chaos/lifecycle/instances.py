"""The controller instance an experiment drives, installed the way the suite does.

Chaos never uses the suite's shared instances: a fault would disturb whoever
else uses them. Each layout gets an instance of its own, named after the
profile's (`wpc-legacy` -> `wpc-chaos-legacy`), installed and removed through
the profile's `prepare`/`install`/`uninstall` commands.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from chaos.settings import ChaosSettings
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances.layouts import Instance
from conformance.implementations import driving
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from conformance.implementations.contexts import Environment

logger = logging.getLogger(__name__)

MAX_INSTANCE_ID = 63
"""A namespace name (the reference profile names the namespace after the id)."""


def load_profile(settings: ChaosSettings) -> profiles.Profile:
    """The implementation profile with this run's variables."""
    return profiles.load(settings.implementation, variables=dict(settings.profile_vars))


def chaos_instance(profile: profiles.Profile, layout: str) -> Instance:
    """The chaos instance of `layout`: the profile's instance id, `chaos` inserted."""
    shared = profile.instance_ids[layout]
    instance_id = f"wpc-chaos-{shared.removeprefix('wpc-')}"[:MAX_INSTANCE_ID]
    instance_id = instance_id.rstrip("-")
    values = {"instance_id": instance_id, "layout": layout}
    return Instance(
        layout=layout,
        instance_id=instance_id,
        namespace=profile.controller_namespace.format_map(values),
    )


def cluster_of(settings: ChaosSettings) -> ClusterChoice:
    """The target cluster as the suite's preparation names it."""
    return ClusterChoice(
        kubeconfig=Path(settings.kubeconfig) if settings.kubeconfig else None,
        provider=settings.provider,
        cluster=settings.cluster,
        allow_foreign=False,
    )


def locate(settings: ChaosSettings) -> tuple[str, str]:
    """(kubeconfig, kubectl) of the target cluster."""
    return preparing.locate_cluster(cluster_of(settings))


def driver(
    settings: ChaosSettings,
    profile: profiles.Profile,
    *,
    kubeconfig: str,
    kubectl: str,
    timeouts: Timeouts,
) -> driving.Driver:
    """The profile's commands, with the suite's placeholder values."""
    values = {
        "repo": str(preparing.REPO),
        "python": sys.executable,
        "kubeconfig": kubeconfig,
        "kubectl": kubectl,
        "provider": settings.provider,
        "cluster": settings.cluster,
        "cache_dir": str(Environment.from_env().cache_dir),
    }
    return driving.Driver(
        profile=profile,
        values=values,
        log_dir=settings.reports_dir / "chaos" / "logs",
        timeout=timeouts.install,
    )


def is_installed(clients: kube.Clients, instance: Instance, selector: str) -> bool:
    """Whether the instance's controller has a running pod."""
    from kubernetes.client.exceptions import ApiException

    try:
        pods = clients.core.list_namespaced_pod(
            instance.namespace, label_selector=selector
        ).items
    except ApiException as exc:
        if exc.status == 404:
            return False
        raise
    return any(p.status.phase == "Running" for p in pods)


def install(
    drv: driving.Driver, instances: list[Instance], *, settings: ChaosSettings
) -> None:
    """Load the images, apply the shared objects, install `instances`.

    The experiments' workflows run their commands from the suite's tools image,
    as the scenarios do, so it is loaded here too: a cluster built afresh has
    only what a run loaded into it.
    """
    preparing.load_tools_image(cluster_of(settings))
    drv.prepare(tuple(i.layout for i in instances))
    for instance in instances:
        logger.info("Installing the chaos instance %s.", instance.instance_id)
        drv.control("install", instance)


def uninstall(drv: driving.Driver, instances: list[Instance]) -> None:
    """Remove `instances` (the profile's uninstall waits until they are gone)."""
    for instance in instances:
        logger.info("Removing the chaos instance %s.", instance.instance_id)
        drv.control("uninstall", instance)
