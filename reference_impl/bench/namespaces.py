"""The benchmark's own namespace: created with the executor RBAC, deleted and waited for.

Deletion first strips the pod status-capture finalizer from the namespace's
pods (a controller that is busy elsewhere must not hold the namespace), and
refuses to touch a namespace that lacks this run's session label.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from kubernetes.client.exceptions import ApiException

from plumbing import waiting
from reference_impl import common
from reference_impl.bench import manifests
from reference_impl.bench.errors import BenchError
from reference_impl.bench.errors import WaitTimeout
from reference_impl.bench.settings import Timeouts

logger = logging.getLogger(__name__)

NOT_FOUND = 404


def unique_name() -> str:
    """`wpc-bench-1a2b3c4d`."""
    return f"wpc-bench-{uuid.uuid4().hex[:8]}"


def create(
    core: Any, rbac: Any, *, name: str, session_id: str, timeouts: Timeouts
) -> None:
    """Create the namespace and its executor RBAC; wait for its default ServiceAccount."""
    core.create_namespace(
        manifests.namespace(name, session_id), _request_timeout=timeouts.api_request
    )
    rbac.create_namespaced_role(
        name, manifests.executor_role(session_id), _request_timeout=timeouts.api_request
    )
    rbac.create_namespaced_role_binding(
        name,
        manifests.executor_binding(name, session_id),
        _request_timeout=timeouts.api_request,
    )

    def account() -> bool | waiting.NotYet:
        try:
            core.read_namespaced_service_account(
                "default", name, _request_timeout=timeouts.api_request
            )
        except ApiException as exc:
            if exc.status == NOT_FOUND:
                return waiting.NotYet("ServiceAccount default not found yet")
            raise
        return True

    waiting.until(
        account,
        timeout=timeouts.namespace_ready,
        interval=timeouts.poll_interval,
        describe=f"ServiceAccount {name}/default",
        error=WaitTimeout,
    )
    logger.info("[%s] Created the bench namespace with executor RBAC.", name)


def _strip_status_finalizers(core: Any, name: str, timeouts: Timeouts) -> None:
    response = core.list_namespaced_pod(
        name, _preload_content=False, _request_timeout=timeouts.api_request
    )
    for pod in json.loads(response.data).get("items") or []:
        finalizers = pod["metadata"].get("finalizers") or []
        if common.FINALIZER_STATUS not in finalizers:
            continue
        kept = [f for f in finalizers if f != common.FINALIZER_STATUS]
        # A JSON patch: in a strategic merge patch `finalizers` merges.
        core.patch_namespaced_pod(
            pod["metadata"]["name"],
            name,
            [{"op": "replace", "path": "/metadata/finalizers", "value": kept}],
            _request_timeout=timeouts.api_request,
        )


def delete(core: Any, *, name: str, session_id: str, timeouts: Timeouts) -> None:
    """Delete the bench namespace (if it exists and is ours) and wait until it is gone."""
    try:
        current = core.read_namespace(name, _request_timeout=timeouts.api_request)
    except ApiException as exc:
        if exc.status == NOT_FOUND:
            return
        raise
    if (current.metadata.labels or {}).get(manifests.SESSION) != session_id:
        raise BenchError(
            f"refusing to delete namespace {name}: not created by run {session_id}"
        )
    _strip_status_finalizers(core, name, timeouts)
    core.delete_namespace(name, _request_timeout=timeouts.api_request)

    def gone() -> bool | waiting.NotYet:
        try:
            ns = core.read_namespace(name, _request_timeout=timeouts.api_request)
        except ApiException as exc:
            if exc.status == NOT_FOUND:
                return True
            raise
        # Pods may still be finishing while the namespace terminates; strip again.
        _strip_status_finalizers(core, name, timeouts)
        conditions = [(c.type, c.message) for c in ns.status.conditions or []]
        return waiting.NotYet(f"namespace {name} phase={ns.status.phase} {conditions}")

    waiting.until(
        gone,
        timeout=timeouts.namespace_deleted,
        interval=timeouts.poll_interval,
        describe=f"namespace {name} to be deleted",
        error=WaitTimeout,
    )
    logger.info("[%s] Deleted the bench namespace.", name)
