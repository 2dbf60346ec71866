"""The benchmark's own controller instance and namespace for one layout.

Installed through the profile's commands (`implementations.driving`), exactly
as the suite installs its instances, but under the bench's instance ID
(`settings.INSTANCE_PREFIX`), so a run never replaces or uninstalls the
suite's shared instances; only one bench controller runs at a time. The
namespace is the harness's (labelled, with the executor RBAC users are told
to create, deleted and waited for).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from conformance.harness.cluster import kube
from conformance.harness.cluster.watching import until
from conformance.harness.instances.layouts import Instance
from conformance.harness.stage import namespaces
from conformance.implementations import preparing
from conformance.implementations import profiles
from plumbing.waiting import NotYet
from wpc.bench.settings import SHORT_NAME
from wpc.bench.settings import BenchSettings

logger = logging.getLogger(__name__)


def bench_instance(
    profile: profiles.Profile, *, layout: str, instance_id: str
) -> Instance:
    """The bench's instance of `layout`; HarnessError if it would share a namespace.

    A profile whose controller namespace ignores `{instance_id}` would install the
    bench's instance over a shared one (and uninstall it afterwards): refused.
    """
    return preparing.private_instance(
        profile, layout=layout, instance_id=instance_id, whose="the bench's"
    )


def _default_account(clients: kube.Clients, name: str, timeout: float) -> bool | NotYet:
    from kubernetes.client.exceptions import ApiException

    try:
        clients.core.read_namespaced_service_account(
            "default", name, _request_timeout=timeout
        )
    except ApiException as exc:
        if exc.status == 404:
            return NotYet(f"ServiceAccount {name}/default not found yet")
        raise
    return True


@contextmanager
def namespace(
    clients: kube.Clients, *, layout: str, session_id: str, settings: BenchSettings
) -> Iterator[tuple[str, dict[str, str]]]:
    """A fresh labelled namespace and its labels; deleted and awaited afterwards.

    Waits for the namespace's `default` ServiceAccount (kube-controller-manager
    creates it asynchronously), so the first pod is not refused and a startup
    figure never includes that wait.
    """
    timeouts = settings.timeouts
    labels = kube.labels(session_id=session_id, short_name=SHORT_NAME, layout=layout)
    name = namespaces.unique_name(short_name=SHORT_NAME, layout=layout)
    namespaces.create(clients, name=name, labels=labels)
    try:
        until(
            lambda: _default_account(clients, name, timeouts.api_call),
            timeout=timeouts.namespace_ready,
            interval=timeouts.poll_interval,
            describe=f"ServiceAccount {name}/default",
        )
        yield name, labels
    finally:
        namespaces.delete(clients, name=name, session_id=session_id, timeouts=timeouts)
