"""At the start of a run, remove what earlier runs of this host left behind when they died.

A run's own sweep (at its end) deletes the namespaces labelled with its
session ID. A run that never reaches its end (killed, the machine rebooted,
Ctrl-C under an old launcher) leaves its namespaces and private controller
instances behind, and a private instance without an instanceID then acts on
every unlabelled Workflow of later runs. So each run holds a host lock named
after its session for its whole life (`locking.hold_for_life`), and the next
run on the host sweeps every session whose lock file exists but is not held:
that run is dead. Sessions without a lock file on this host (other hosts,
chaos experiments, suites from before the locks) are left alone and named in
the log, since nothing here can tell whether they still run.

Private instances are found by the labels `dedicated_instance` puts on their
namespace; they are removed with the profile's `uninstall` when they belong to
this run's implementation, otherwise the log gives the command that removes
them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import locking
from conformance.harness.instances.layouts import Instance
from conformance.harness.stage import namespaces
from conformance.implementations import driving
from conformance.implementations import profiles

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sweep:
    """What the start-of-run sweep did."""

    swept: tuple[str, ...] = ()
    """Namespaces removed (a private instance's namespace: by its uninstall)."""
    left: tuple[str, ...] = ()
    """Namespaces of dead runs left in place, each with the reason."""


def private_instance_labels(
    *, session_id: str, instance: Instance, implementation: str
) -> dict[str, str]:
    """The labels a private instance's namespace gets, so a sweep can find it."""
    return {
        kube.MANAGED_BY: kube.MANAGED_BY_VALUE,
        kube.SESSION: session_id,
        kube.LAYOUT: instance.layout,
        kube.INSTANCE: instance.instance_id,
        kube.IMPLEMENTATION: implementation,
    }


def _by_session(clients: kube.Clients) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = defaultdict(list)
    selector = f"{kube.MANAGED_BY}={kube.MANAGED_BY_VALUE},{kube.SESSION}"
    for ns in clients.core.list_namespace(label_selector=selector).items:
        found[(ns.metadata.labels or {})[kube.SESSION]].append(ns)
    return found


def sweep_dead_runs(
    clients: kube.Clients,
    *,
    cluster: str,
    own_session: str,
    profile: profiles.Profile,
    driver: driving.Driver,
    timeouts: Timeouts,
    uninstall_hint: str,
) -> Sweep:
    """Remove the namespaces and private instances of this host's dead runs.

    `cluster` keys the session locks (the API server's URL); `uninstall_hint`
    is the `python -m conformance uninstall` prefix for instances of another
    implementation, which are left alone.
    """
    swept: list[str] = []
    left: list[str] = []
    unknown: list[str] = []
    for session, found in sorted(_by_session(clients).items()):
        if session == own_session:
            continue
        lock = locking.session_lock_name(session)
        state = locking.liveness(lock, cluster=cluster)
        if state != locking.DEAD:
            if state == locking.UNKNOWN:
                unknown += [ns.metadata.name for ns in found]
            continue
        complete = True
        for ns in found:
            name = ns.metadata.name
            labels = ns.metadata.labels or {}
            instance_id = labels.get(kube.INSTANCE)
            if not instance_id:
                namespaces.delete(
                    clients, name=name, session_id=session, timeouts=timeouts
                )
                swept.append(name)
                continue
            implementation = labels.get(kube.IMPLEMENTATION, "?")
            layout = labels.get(kube.LAYOUT, "?")
            if implementation != profile.name:
                complete = False
                left.append(
                    f"{name}: private instance {instance_id} of {implementation}, "
                    f"remove it with {uninstall_hint} --implementation {implementation} "
                    f"--layout {layout} --instance-id {instance_id}"
                )
                continue
            driver.control(
                "uninstall",
                Instance(layout=layout, instance_id=instance_id, namespace=name),
            )
            swept.append(name)
        if complete:
            locking.forget(lock, cluster=cluster)
    if swept:
        logger.warning(
            "Removed what runs that died on this host left behind: %s.",
            ", ".join(swept),
        )
    for line in left:
        logger.warning("Left in place: %s.", line)
    if unknown:
        logger.info(
            "Not swept (runs this host did not start, or still running elsewhere): %s.",
            ", ".join(sorted(unknown)),
        )
    return Sweep(swept=tuple(swept), left=tuple(left))
