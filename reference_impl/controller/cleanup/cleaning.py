"""The pod clean-up queue: carries out `decisions.Action`s (Argo's `workflow/controller/pod/queue.go`).

Keys are `<namespace>/<pod>/<action>`, so the same action on the same pod is never queued
twice. Every action reads the pod from the pod cache; a pod that left the cache (labelled
completed, or deleted) needs nothing more. Conflicts and API failures are retried with
back-off; exec failures while signalling are logged and ignored, as in Argo.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from typing import Protocol

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.cleanup import killing
from reference_impl.controller.faults import Fault
from reference_impl.controller.machinery.queueing import WorkQueue

Json = dict[str, Any]
logger = logging.getLogger(__name__)


class PodApi(Protocol):
    """The pod calls clean-up needs."""

    def patch_pod(self, namespace: str, name: str, patch: Json) -> Json:
        """Merge-patch a pod."""
        ...

    def get_pod(self, namespace: str, name: str) -> Json | None:
        """Read a pod from the API (None if it is gone)."""
        ...

    def delete_pod(
        self,
        namespace: str,
        name: str,
        *,
        grace_seconds: int | None = None,
        uid: str | None = None,
    ) -> None:
        """Delete a pod."""
        ...

    def exec_in_container(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> str:
        """Run a command in a container."""
        ...


_ALSO_FOR_COMPLETED = (
    decisions.Action.TERMINATE,
    decisions.Action.KILL,
    decisions.Action.DELETE,
)
"""Actions carried out on pods the cache has dropped (read from the API)."""

_OWN_AUX = frozenset({common.WAIT, common.SUPERVISOR})


class PodCleaner:
    """Queue and execute pod clean-up actions."""

    def __init__(
        self,
        *,
        api: PodApi,
        get_pod: Callable[[str], Json | None],
        grace_period_seconds: Callable[[], int | None],
        queue: WorkQueue | None = None,
        fault: commission.Fault | None = None,
        deliberate: Fault | None = None,
    ) -> None:
        self._api = api
        self._fault = fault
        """A fault of commission whose `cleanup` hook changes each clean-up patch."""
        self._deliberate = deliberate
        """This process's enum fault: `terminate-with-sigkill` and `kill_command`'s
        change what is sent."""
        self._get_pod = get_pod
        self._grace_period_seconds = grace_period_seconds
        self.queue = queue if queue is not None else WorkQueue()

    def enqueue(
        self, namespace: str, pod: str, action: decisions.Action, delay: float = 0.0
    ) -> None:
        """Queue `action` for a pod, after `delay` seconds."""
        logger.info(
            "[%s/%s] Queueing pod action %s in %.0fs.",
            namespace,
            pod,
            action.value,
            delay,
        )
        self.queue.add_after(f"{namespace}/{pod}/{action.value}", delay)

    def process(self, key: str) -> None:
        """Carry out one queued action; re-queue it with back-off when it must be retried."""
        namespace, pod_name, action_name = key.split("/", 2)
        action = decisions.Action(action_name)
        try:
            self._run(namespace, pod_name, action)
            self.queue.forget(key)
        except errors.ApiError as err:
            if isinstance(err, errors.NotFound):
                return
            logger.warning(
                "[%s/%s] Pod action %s failed, retrying: %s",
                namespace,
                pod_name,
                action.value,
                err,
            )
            self.queue.add_rate_limited(key)

    def _run(self, namespace: str, pod_name: str, action: decisions.Action) -> None:
        pod = self._get_pod(f"{namespace}/{pod_name}")
        if pod is None and action in _ALSO_FOR_COMPLETED:
            # The cache holds only pods not yet labelled completed, and a node
            # that a shutdown fails is fulfilled (so its pod labelled) while
            # its containers still run or it is still Pending: signal or
            # delete it all the same.
            pod = self._api.get_pod(namespace, pod_name)
        if pod is None:
            return
        if action is decisions.Action.TERMINATE:
            if (pod.get("status") or {}).get("phase") == "Pending":
                self.enqueue(namespace, pod_name, decisions.Action.DELETE)
                return
            first = killing.SIGTERM
            if self._deliberate is Fault.TERMINATE_WITH_SIGKILL:
                first = killing.SIGKILL
            self._signal(pod, first)
            self.enqueue(
                namespace, pod_name, decisions.Action.KILL, killing.grace_seconds(pod)
            )
        elif action is decisions.Action.KILL:
            self._signal(pod, killing.SIGKILL)
        elif action is decisions.Action.LABEL_COMPLETED:
            self._patch(pod, label_completed=True)
        elif action is decisions.Action.REMOVE_FINALIZER:
            self._patch(pod, label_completed=False)
        elif action is decisions.Action.DELETE:
            self._patch(pod, label_completed=False)
            self._api.delete_pod(
                namespace, pod_name, grace_seconds=self._grace_period_seconds()
            )
            logger.info("[%s/%s] Deleted pod.", namespace, pod_name)

    def _patch(self, pod: Json, *, label_completed: bool) -> None:
        patch = decisions.cleanup_patch(
            pod,
            label_completed=label_completed,
        )
        if patch is None:
            return
        patch = commission.apply_cleanup(patch, self._fault)
        meta = pod["metadata"]
        self._api.patch_pod(meta["namespace"], meta["name"], patch)
        if "finalizers" in patch["metadata"]:
            logger.info(
                "[%s/%s] Removed the status finalizer.", meta["namespace"], meta["name"]
            )
        if label_completed:
            logger.info(
                "[%s/%s] Labelled pod completed.", meta["namespace"], meta["name"]
            )

    def _signal(self, pod: Json, signal_number: int) -> None:
        meta = pod["metadata"]
        for container in killing.running_containers(pod):
            if container in _OWN_AUX:
                # Argo signals its aux container too. Ours is a static Python
                # executable that unpacks itself for seconds on a loaded node;
                # a SIGTERM before its handler exists kills it by the signal
                # (exit code 2 from the bootloader, and the node fails). It
                # finishes by itself once the main containers have exited,
                # which the signals to them bring about.
                continue
            try:
                command = killing.kill_command(
                    pod, container, signal_number, fault=self._deliberate
                )
                output = self._api.exec_in_container(
                    meta["namespace"], meta["name"], container, command
                )
            except (
                errors.ControllerError
            ) as err:  # Argo ignores signalling failures too
                logger.info(
                    "[%s/%s] Signal %d to %s failed: %s",
                    meta["namespace"],
                    meta["name"],
                    signal_number,
                    container,
                    err,
                )
                continue
            logger.info(
                "[%s/%s] Signalled container %s with %d: %s",
                meta["namespace"],
                meta["name"],
                container,
                signal_number,
                output.strip(),
            )
