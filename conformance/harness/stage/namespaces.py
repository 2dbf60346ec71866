"""One namespace per test, with the executor RBAC users are told to create.

The executor writes a WorkflowTaskResult per node, so the namespace's default
ServiceAccount needs `create` and `patch` on `argoproj.io/workflowtaskresults`
(the spec's executor RBAC clause); the suite does what users are told to do.
Deletion strips the pod status-capture finalizer from the namespace's pods
(only this run's namespaces) and waits until the namespace is gone, at once
(`delete`) or, for the test namespaces, at the worker's end (`Deletions`).
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from conformance import contract
from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.watching import until
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

EXECUTOR_ROLE = "wpc-executor"
MAX_NAME = 63


def unique_name(*, short_name: str, layout: str) -> str:
    """`wpc-hello-world-legacy-1a2b3c4d`, truncated to a valid namespace name."""
    suffix = f"-{layout}-{uuid.uuid4().hex[:8]}"
    stem = f"wpc-{kube.kebab(short_name)}"[: MAX_NAME - len(suffix)].rstrip("-")
    return stem + suffix


def executor_role(namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """The Role the executor needs: create and patch its task results."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": EXECUTOR_ROLE, "namespace": namespace, "labels": labels},
        "rules": [
            {
                "apiGroups": [contract.WORKFLOW_GROUP],
                "resources": ["workflowtaskresults"],
                "verbs": ["create", "patch"],
            }
        ],
    }


def executor_binding(namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """Binds the executor Role to the namespace's default ServiceAccount."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": EXECUTOR_ROLE, "namespace": namespace, "labels": labels},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": EXECUTOR_ROLE,
        },
        "subjects": [
            {"kind": "ServiceAccount", "name": "default", "namespace": namespace}
        ],
    }


def create(
    clients: kube.Clients,
    *,
    name: str,
    labels: dict[str, str],
    timeout: float = Timeouts.namespace_ready,
) -> None:
    """Create the namespace and its executor RBAC, and wait until RBAC grants it."""
    clients.core.create_namespace({"metadata": {"name": name, "labels": labels}})
    clients.rbac.create_namespaced_role(name, executor_role(name, labels))
    clients.rbac.create_namespaced_role_binding(name, executor_binding(name, labels))
    until(
        lambda: _executor_granted(clients, name),
        timeout=timeout,
        interval=0.1,
        describe=f"RBAC to grant the executor role in namespace {name}",
    )
    logger.info("[%s] Created the test namespace with executor RBAC.", name)


def _executor_granted(clients: kube.Clients, namespace: str) -> str | NotYet:
    """Whether every verb of the executor Role is allowed to the default SA yet.

    The API server's RBAC authorizer reads bindings through an informer, so a
    binding just created can be missing from the next reviews: seen in a
    conformance run, `create workflowtaskresults` denied and, one review later,
    `patch` allowed. A pod started in that window cannot report its outputs.
    """
    from kubernetes import client

    authz = client.AuthorizationV1Api(clients.api)
    subject = executor_subject(namespace)
    denied = []
    for verb in executor_role(namespace, {})["rules"][0]["verbs"]:
        attributes = {
            "namespace": namespace,
            "verb": verb,
            "group": contract.WORKFLOW_GROUP,
            "resource": "workflowtaskresults",
        }
        review: Any = {"spec": {**subject, "resourceAttributes": attributes}}
        status = authz.create_subject_access_review(review).status
        if not (status and status.allowed):
            denied.append(verb)
    if denied:
        return NotYet(
            f"{subject['user']} may not yet {'/'.join(denied)} workflowtaskresults"
        )
    return "granted"


def executor_subject(namespace: str) -> dict[str, Any]:
    """The namespace's `default` service account as RBAC sees it (user and groups)."""
    return {
        "user": f"system:serviceaccount:{namespace}:default",
        "groups": [
            "system:serviceaccounts",
            f"system:serviceaccounts:{namespace}",
            "system:authenticated",
        ],
    }


def strip_status_finalizers(clients: kube.Clients, namespace: str) -> int:
    """Remove the status-capture finalizer from the namespace's pods; return how many.

    A pod listed with the finalizer may be gone by the time it is patched (the
    controller released it, pod GC deleted it: seen in a reference run's teardown
    of FinalizerPodGc as a 404): its finalizer is gone with it, so that is no error.
    """
    from kubernetes.client.exceptions import ApiException

    stripped = 0
    for pod in clients.core.list_namespaced_pod(namespace).items:
        finalizers = pod.metadata.finalizers or []
        if contract.STATUS_FINALIZER not in finalizers:
            continue
        kept = [f for f in finalizers if f != contract.STATUS_FINALIZER]
        # A JSON patch: in a strategic merge patch `finalizers` merges, so an
        # empty list would remove nothing.
        try:
            clients.core.patch_namespaced_pod(
                pod.metadata.name,
                namespace,
                [{"op": "replace", "path": "/metadata/finalizers", "value": kept}],
            )
        except ApiException as exc:
            if exc.status == 404:
                continue  # deleted since the list: nothing left to strip
            raise
        stripped += 1
    if stripped:
        logger.info(
            "[%s] Stripped the status finalizer from %d pod(s).", namespace, stripped
        )
    return stripped


def _read(clients: kube.Clients, name: str) -> Any | None:
    """Namespace `name` as the API server has it now; None once it is gone."""
    from kubernetes.client.exceptions import ApiException

    try:
        return clients.core.read_namespace(name)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def start_delete(clients: kube.Clients, *, name: str, session_id: str) -> bool:
    """Delete a namespace this run created, without waiting; False if already gone."""
    ns = _read(clients, name)
    if ns is None:
        return False
    if (ns.metadata.labels or {}).get(kube.SESSION) != session_id:
        raise HarnessError(
            f"refusing to delete namespace {name}: not created by run {session_id}"
        )
    clients.core.delete_namespace(name)
    strip_status_finalizers(clients, name)
    return True


def wait_deleted(
    clients: kube.Clients,
    *,
    name: str,
    timeouts: Timeouts,
    timeout: float | None = None,
) -> None:
    """Wait until namespace `name`, being deleted, is gone.

    Within `timeouts.namespace_deleted`, or `timeout` when a caller shares one
    bound among several namespaces.
    """

    def gone() -> bool | NotYet:
        # Pods may still be created while the namespace terminates; strip again.
        current = _read(clients, name)
        if current is None:
            return True
        strip_status_finalizers(clients, name)
        return NotYet(
            f"namespace {name} phase={current.status.phase}, "
            f"conditions={[(c.type, c.message) for c in current.status.conditions or []]}"
        )

    until(
        gone,
        timeout=timeouts.namespace_deleted if timeout is None else timeout,
        interval=max(timeouts.poll_interval, 1.0),
        describe=f"namespace {name} to be deleted",
    )
    logger.info("[%s] Deleted the test namespace.", name)


def delete(
    clients: kube.Clients, *, name: str, session_id: str, timeouts: Timeouts
) -> None:
    """Delete a namespace this run created and wait until it is gone."""
    if start_delete(clients, name=name, session_id=session_id):
        wait_deleted(clients, name=name, timeouts=timeouts)


class Deletions:
    """Test namespaces whose deletion was started, awaited together at the end.

    Kubernetes takes about 6 s to remove even an empty namespace; a test that
    waited for it would hold its worker that long after its verdict, for
    nothing the next test needs (every test has its own namespace). The
    namespace fixture starts the deletion and moves on; the worker awaits them
    all at its session's end (`wait_all`), while they have long been deleting
    side by side. One not gone in time is logged and left to the run's sweep,
    which reports it among the leaks instead of failing whichever test ran last.
    """

    def __init__(
        self, clients: kube.Clients, *, session_id: str, timeouts: Timeouts
    ) -> None:
        self._clients = clients
        self._session_id = session_id
        self._timeouts = timeouts
        self.pending: list[str] = []

    def start(self, name: str) -> None:
        """Start deleting `name` (a namespace of this run); awaited by `wait_all`."""
        if start_delete(self._clients, name=name, session_id=self._session_id):
            self.pending.append(name)

    def wait_all(self) -> list[str]:
        """Wait for every started deletion; return the namespaces still there.

        One `namespace_deleted` bound for them all: they have been deleting side
        by side, so N stuck namespaces cost one timeout, not N.
        """
        from kubernetes.client.exceptions import ApiException

        deadline = time.monotonic() + self._timeouts.namespace_deleted
        left: list[str] = []
        while self.pending:
            name = self.pending.pop(0)
            try:
                wait_deleted(
                    self._clients,
                    name=name,
                    timeouts=self._timeouts,
                    timeout=max(0.0, deadline - time.monotonic()),
                )
            except (WaitTimeout, ApiException) as exc:
                logger.error("[%s] Left to the run's sweep: %s", name, exc)
                left.append(name)
        return left


def wait_default_account(clients: kube.Clients, name: str, timeouts: Timeouts) -> None:
    """Wait until namespace `name` has its `default` ServiceAccount.

    kube-controller-manager creates it asynchronously after the namespace; a pod
    created before it exists is refused.
    """
    from kubernetes.client.exceptions import ApiException

    def present() -> bool | NotYet:
        try:
            clients.core.read_namespaced_service_account(
                "default", name, _request_timeout=timeouts.api_call
            )
        except ApiException as exc:
            if exc.status == 404:
                return NotYet(f"ServiceAccount {name}/default not found yet")
            raise
        return True

    until(
        present,
        timeout=timeouts.namespace_ready,
        interval=timeouts.poll_interval,
        describe=f"ServiceAccount {name}/default",
    )
