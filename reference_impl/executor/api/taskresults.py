"""The WorkflowTaskResult: the executor's one object in the API (contract section 6).

The executor never writes the Workflow or its pod; it reports through one
WorkflowTaskResult named after the node ID, which the controller merges. This
module builds its body and applies Argo's upsert rule (create, on AlreadyExists
merge-patch; later patch, on NotFound create) with retries on transient errors
(back-off 1 s x2, capped at 30 s, forever, as upstream). The API itself is a
`TaskResultApi`, so tests use a fake and production `kubeapi`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from typing import Protocol

from reference_impl import commission
from reference_impl import common
from reference_impl.executor.clocks import Clock
from reference_impl.executor.errors import ApiError

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]
KIND = "WorkflowTaskResult"
PLURAL = "workflowtaskresults"
RBAC_HINT = "see https://argo-workflows.readthedocs.io/en/latest/workflow-rbac/"


class TaskResultApi(Protocol):
    """The two verbs the executor's RBAC allows on workflowtaskresults."""

    def create(self, *, namespace: str, body: JsonDict) -> None:
        """POST the object; ApiError (reason AlreadyExists, ...) on failure."""
        ...

    def merge_patch(self, *, namespace: str, name: str, patch: JsonDict) -> None:
        """Apply a JSON merge patch; ApiError (reason NotFound, ...) on failure."""
        ...

    def get(self, *, namespace: str, name: str) -> JsonDict:
        """GET the object: a verb the executor's RBAC does NOT allow (Forbidden).

        Only the `result-read-back` fault calls it, to show that needing it breaks
        WPC-RESULT-006.
        """
        ...


@dataclass(frozen=True)
class Identity:
    """Whose result this is."""

    namespace: str
    node_id: str
    workflow_name: str
    workflow_uid: str
    instance_id: str = ""


def new_body(identity: Identity, result: JsonDict) -> JsonDict:
    """The object to create: labels, owner (no controller flag), and the NodeResult."""
    labels = {
        common.LABEL_WORKFLOW: identity.workflow_name,
        common.LABEL_REPORT_OUTPUTS_COMPLETED: "false",
    }
    if identity.instance_id:
        labels[common.LABEL_INSTANCE_ID] = identity.instance_id
    return {
        "apiVersion": common.API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": identity.node_id,
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": common.API_VERSION,
                    "kind": "Workflow",
                    "name": identity.workflow_name,
                    "uid": identity.workflow_uid,
                }
            ],
        },
        **result,
    }


class Reporter:
    """Upserts one task result, remembering whether it has been created."""

    def __init__(
        self,
        *,
        api: TaskResultApi,
        identity: Identity,
        clock: Clock,
        first_backoff: float = 1.0,
        max_backoff: float = 30.0,
        fault: commission.Fault | None = None,
    ) -> None:
        self._api = api
        self._fault = fault
        """A fault of commission's `taskResult` hook: applied to every body written."""
        self._identity = identity
        self._clock = clock
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._created = False

    def upsert(self, result: JsonDict) -> None:
        """Report `result` (a NodeResult: outputs, progress, ...), retrying transient errors."""
        self._retrying(lambda: self._upsert_once(result))

    def finalize(self) -> None:
        """Mark outputs as completely reported (label `report-outputs-completed: "true"`)."""
        patch = {
            "metadata": {"labels": {common.LABEL_REPORT_OUTPUTS_COMPLETED: "true"}}
        }
        self._retrying(lambda: self._patch(patch))

    def reopen(self) -> None:
        """The `result-reopened` fault: set the label back to "false"."""
        patch = {
            "metadata": {"labels": {common.LABEL_REPORT_OUTPUTS_COMPLETED: "false"}}
        }
        self._retrying(lambda: self._patch(patch))

    def read_back(self) -> None:
        """The `result-read-back` fault: GET the task result (Forbidden by the RBAC)."""

        def read() -> None:
            self._api.get(
                namespace=self._identity.namespace, name=self._identity.node_id
            )

        self._retrying(read)

    def _upsert_once(self, result: JsonDict) -> None:
        if not self._created:
            try:
                self._api.create(
                    namespace=self._identity.namespace,
                    body=self._faulty(new_body(self._identity, result)),
                )
            except ApiError as err:
                if err.reason != "AlreadyExists":
                    raise
                self._patch(result)
            self._created = True
            return
        try:
            self._patch(result)
        except ApiError as err:
            if err.reason != "NotFound":
                raise
            self._api.create(
                namespace=self._identity.namespace,
                body=self._faulty(new_body(self._identity, result)),
            )

    def _patch(self, patch: JsonDict) -> None:
        self._api.merge_patch(
            namespace=self._identity.namespace,
            name=self._identity.node_id,
            patch=self._faulty(patch),
        )

    def _faulty(self, body: JsonDict) -> JsonDict:
        return commission.apply_task_result(body, self._fault)

    def _retrying(self, call: Callable[[], None]) -> None:
        delay = self._first_backoff
        attempt = 0
        while True:
            try:
                call()
                return
            except ApiError as err:
                if err.status == 403:
                    logger.warning(
                        "Failed to write the task result (%s): %s.", RBAC_HINT, err
                    )
                if not err.transient:
                    raise
                if attempt % 20 == 0:
                    logger.warning(
                        "Failed to write the task result (attempt %d): %s.",
                        attempt,
                        err,
                    )
            attempt += 1
            self._clock.sleep(delay)
            delay = min(delay * 2, self._max_backoff)
