"""The workflow controller: caches, queues and worker threads around `reconciling.reconcile`.

Concurrency model: threads and queues only. One thread per cache (informer), a few workflow
workers and pod clean-up workers; handlers only enqueue keys, workers do the work, and the
work queue guarantees one worker per workflow at a time. The controller is stateless: on
start it lists everything from the API server, so a restart (or a new leader) rebuilds its
view from the cluster and finishes what the previous process left, including pod clean-up.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.cleanup.cleaning import PodCleaner
from reference_impl.controller.config import configuration
from reference_impl.controller.config.configuration import ControllerConfig
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import timestamps
from reference_impl.controller.machinery import kube
from reference_impl.controller.machinery import sources
from reference_impl.controller.machinery.queueing import WorkQueue
from reference_impl.controller.machinery.watching import GiveUp
from reference_impl.controller.machinery.watching import Handlers
from reference_impl.controller.machinery.watching import Informer
from reference_impl.controller.runtime import downtime
from reference_impl.controller.runtime import following
from reference_impl.controller.runtime import reconciling
from reference_impl.controller.runtime import throttling
from reference_impl.controller.templates.nodes import hooks
from reference_impl.controller.templates.nodes import inference
from reference_impl.controller.templates.operation import Operation
from reference_impl.controller.templates.operation import pod_node_id

Json = dict[str, Any]
logger = logging.getLogger(__name__)


def _informer(
    api: kube.KubeApi,
    give_up: GiveUp | None,
    name: str,
    path: str,
    *,
    labels: str = "",
    fields: str = "",
    on_object: Callable[[Json], None],
    on_delete: Callable[[Json], None] | None = None,
    by_workflow: bool = False,
) -> Informer:
    """Return the cache of one collection; every cache takes an update as its new object.

    `by_workflow` indexes the objects by the workflow they belong to.
    """
    return Informer(
        name=name,
        give_up=give_up,
        source=sources.ApiSource(
            api, path, label_selector=labels, field_selector=fields
        ),
        handlers=Handlers(
            on_add=on_object,
            on_update=lambda _old, new: on_object(new),
            on_delete=on_delete,
        ),
        indexes={"workflow": sources.workflow_index} if by_workflow else None,
    )


class WorkflowController:
    """Everything one controller process runs once it is the leader."""

    def __init__(
        self,
        *,
        api: kube.KubeApi,
        settings: ControllerSettings,
        startup_config: ControllerConfig,
        clock: timestamps.Clock = timestamps.utc_now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api, self.settings, self.clock, self.monotonic = (
            api,
            settings,
            clock,
            monotonic,
        )
        self.startup_config = self._config = startup_config
        # Chaos negative controls (faults.py) judge pods and nodes by this moment.
        self.started = self.clock().replace(microsecond=0)
        self.started_at = timestamps.format_time(self.started)
        # Set when the controller stops; `label-before-record` pauses on it.
        self._stopping = threading.Event()
        # Workflow uid -> the layout of its first reconciliation (`workflow-keeps-layout`).
        self._first_layouts: dict[str, bool] = {}
        selector = sources.instance_selector(startup_config.instance_id)
        # `claim-sibling-pods` (a fault): the pods of the other layout's instance too.
        self.sibling = (
            faults.sibling_instance(startup_config.instance_id)
            if settings.has_fault(Fault.CLAIM_SIBLING_PODS)
            else ""
        )
        self._claimed: set[str] = set()  # uids of the twin's pods claimed once
        self._reopened: dict[str, str] = {}  # `reopen-after-restart`: uid -> phase
        pod_selector = sources.instance_selector(
            startup_config.instance_id, also=self.sibling
        )
        give_up = (
            GiveUp(watch_seconds=kube.WATCH_SECONDS, clock=monotonic)
            if settings.has_fault(Fault.NO_REWATCH_AFTER_OUTAGE)
            else None
        )
        self.workflows = _informer(
            api,
            give_up,
            "workflows",
            kube.WORKFLOWS,
            labels=selector,
            on_object=self._enqueue_workflow,
            on_delete=self._on_workflow_deleted,
        )
        self.pods = _informer(
            api,
            give_up,
            "pods",
            kube.PODS,
            labels=f"{common.LABEL_WORKFLOW},{common.LABEL_COMPLETED}=false,{pod_selector}",
            on_object=self._on_pod,
            on_delete=lambda pod: self._on_pod(pod, deleted=True),
            by_workflow=True,
        )
        self.task_results = _informer(
            api,
            give_up,
            "taskresults",
            kube.TASK_RESULTS,
            labels=f"{common.LABEL_WORKFLOW},{selector}",
            on_object=self._enqueue_owner,
            by_workflow=True,
        )
        self.configmaps = _informer(
            api,
            give_up,
            "configmap",
            f"/api/v1/namespaces/{settings.namespace}/configmaps",
            fields=f"metadata.name={settings.configmap}",
            on_object=self._on_config,
        )
        self.queue = WorkQueue(clock=monotonic)
        self.throttle = throttling.Throttle(
            cache=self.workflows,
            limit=lambda: self.config().parallelism,
            enqueue=self.queue.add,
            label_seeded=settings.has_fault(Fault.THROTTLE_RUNNING),
        )
        self.follower = (
            following.MainFollower(hold=api.hold_exec, on_lost=self._enqueue_owner)
            if settings.has_fault(Fault.FOLLOW_MAIN_BY_EXEC)
            else None
        )
        self.cleaner = PodCleaner(
            api=api,
            get_pod=self.pods.get,
            grace_period_seconds=lambda: self.config().pod_gc_grace_period_seconds,
            queue=WorkQueue(clock=monotonic),
            fault=settings.commission,
            deliberate=settings.fault,
        )

    # -- configuration ------------------------------------------------------------------

    def config(self) -> ControllerConfig:
        """Return the configuration now in force (the last one that parsed)."""
        return self._config

    def _on_config(self, configmap: Json) -> None:
        try:
            parsed = configuration.parse(configmap.get("data"))
        except errors.ConfigError as err:
            logger.error(
                "[%s/%s] Ignoring invalid configuration: %s",
                self.settings.namespace,
                self.settings.configmap,
                err,
            )
            return
        if parsed.instance_id != self.startup_config.instance_id:
            logger.warning(
                "[%s/%s] instanceID changes need a controller restart.",
                self.settings.namespace,
                self.settings.configmap,
            )
        if parsed != self._config:
            logger.info(
                "[%s/%s] Configuration changed: initlessPod=%s, parallelism=%d.",
                self.settings.namespace,
                self.settings.configmap,
                parsed.initless,
                parsed.parallelism,
            )
        previous, self._config = self._config, parsed
        if parsed.parallelism != previous.parallelism:
            # A new limit applies at once (upstream's UpdateParallelism): the waiting
            # workflows are looked at again, and those that now fit start.
            self.throttle.wake()

    def initless(self) -> bool:
        """Return the layout for the next pod (frozen at start-up under `keep-old-layout`).

        `always-initless` answers True and `never-initless` False whatever the
        configuration says.
        """
        if self.settings.has_fault(Fault.KEEP_OLD_LAYOUT):
            return self.startup_config.initless
        if self.settings.has_fault(Fault.ALWAYS_INITLESS):
            return True
        if self.settings.has_fault(Fault.NEVER_INITLESS):
            return False
        return self.config().initless

    def _layout_of(self, workflow: Json) -> bool:
        """Return the layout for the workflow's next pod: the controller's.

        Under `workflow-keeps-layout`, the one in force when this process first
        reconciled the workflow, so a switch never reaches its later pods.
        """
        if not self.settings.has_fault(Fault.WORKFLOW_KEEPS_LAYOUT):
            return self.initless()
        uid = str(workflow["metadata"].get("uid") or workflow["metadata"]["name"])
        return self._first_layouts.setdefault(uid, self.initless())

    # -- event handlers ------------------------------------------------------------------

    def _enqueue_workflow(self, workflow: Json) -> None:
        meta = workflow["metadata"]
        self.queue.add(f"{meta['namespace']}/{meta['name']}")

    def _enqueue_owner(self, obj: Json) -> None:
        for key in sources.workflow_index(obj):
            self.queue.add(key)

    def _on_workflow_deleted(self, workflow: Json) -> None:
        meta = workflow["metadata"]
        prefix = f"[{meta['namespace']}/{meta['name']}]"
        self.throttle.release(f"{meta['namespace']}/{meta['name']}")
        if self.settings.has_fault(Fault.LEAVE_FINALIZER):
            logger.info(
                "%s Leaving status finalizers on the deleted workflow's pods (fault).",
                prefix,
            )
            return
        try:
            pods = self.api.list_pods(
                meta["namespace"], f"{common.LABEL_WORKFLOW}={meta['name']}"
            )
        except errors.ApiError as err:
            logger.warning(
                "%s Cannot list the deleted workflow's pods: %s", prefix, err
            )
            return
        for pod in pods:
            if decisions.has_status_finalizer(pod):
                self.cleaner.enqueue(
                    meta["namespace"],
                    pod["metadata"]["name"],
                    decisions.Action.REMOVE_FINALIZER,
                )

    def _on_pod(self, pod: Json, *, deleted: bool = False) -> None:
        if self.sibling and self._twins(pod, deleted=deleted):
            return
        self._enqueue_owner(pod)
        meta = pod["metadata"]
        deleting = deleted or bool(meta.get("deletionTimestamp"))
        if self.follower is not None and not deleting:
            self.follower.follow(pod)
        if (
            self.settings.has_fault(Fault.EARLY_FINALIZER_REMOVAL)
            and not deleting
            and decisions.has_status_finalizer(pod)
            and (pod.get("status") or {}).get("phase") == "Running"
        ):
            self.cleaner.enqueue(
                meta["namespace"], meta["name"], decisions.Action.REMOVE_FINALIZER
            )
            return
        orphaned = self._orphaned(pod)
        action = decisions.pod_event_action(
            pod=pod, deleting=deleting, orphaned=orphaned
        )
        if action is None:
            return
        if orphaned and self.settings.has_fault(Fault.LEAVE_FINALIZER):
            return
        if (
            orphaned
            and self.settings.has_fault(Fault.KEEP_ORPHAN_FINALIZER)
            and faults.predates(pod, self.started_at)
        ):
            return  # an orphan from before this process keeps its finalizer (fault)
        delay = decisions.pod_event_delay(
            pod=pod, action=action, deleting=deleting, now=self.clock()
        )
        self.cleaner.enqueue(meta["namespace"], meta["name"], action, delay)

    def _twins(self, pod: Json, *, deleted: bool) -> bool:
        """Whether the pod is the twin instance's; claim it once (`claim-sibling-pods`).

        The twin's pod is labelled with this instance's ID and at once given back,
        once per pod: its controller only misses it between the two patches (a
        Pending node's pod is not made twice: its name is taken), so its workflow
        still runs, while the pod's label history shows the touch.
        """
        meta = pod["metadata"]
        uid = str(meta.get("uid") or "")
        if uid in self._claimed:
            return True
        if (meta.get("labels") or {}).get(common.LABEL_INSTANCE_ID) != self.sibling:
            return False
        if not deleted:
            self._claimed.add(uid)
            for owner in (self.startup_config.instance_id, self.sibling):
                patch = {"metadata": {"labels": {common.LABEL_INSTANCE_ID: owner}}}
                try:
                    self.api.patch_pod(meta["namespace"], meta["name"], patch)
                except errors.ApiError as err:
                    logger.info("Claiming pod %s (fault): %s", meta["name"], err)
        return True

    def _orphaned(self, pod: Json) -> bool:
        """Return whether the pod's owning Workflow is gone or being deleted (`podOrphaned`)."""
        meta = pod["metadata"]
        owner = next(
            (r for r in meta.get("ownerReferences") or [] if r.get("controller")), None
        )
        if owner is None or owner.get("kind") != "Workflow":
            return False
        workflow = self.workflows.get(f"{meta['namespace']}/{owner['name']}")
        return workflow is None or bool(workflow["metadata"].get("deletionTimestamp"))

    # -- work ------------------------------------------------------------------------------

    def process_workflow(self, key: str) -> None:
        """Reconcile one workflow, persist the result, and queue what must follow."""
        workflow = self.workflows.get(key)
        if workflow is None:
            return
        pods = self.pods.by_index("workflow", key)
        forgotten: list[Json] = []
        if self.settings.has_fault(Fault.FORGET_IN_FLIGHT_PODS) or (
            self.settings.has_fault(Fault.DOUBLE_POD_ON_RESTART)
        ):
            forgotten = [p for p in pods if faults.predates(p, self.started_at)]
            pods = [p for p in pods if p not in forgotten]
        if self.follower is not None:
            pods = [p for p in pods if not self.follower.lost(p)]
        rerun: frozenset[str] = frozenset()
        if self.settings.has_fault(Fault.RERUN_HOOK_ON_RESTART):
            pods, rerun = self._without_hook_pods_from_before(workflow, pods)
        config = self.config()
        if (workflow["metadata"].get("labels") or {}).get(
            common.LABEL_COMPLETED
        ) == "true":
            if self.settings.has_fault(Fault.REOPEN_AFTER_RESTART) and self._reopen(
                key, workflow
            ):
                return
            self._clean_up(workflow, pods, config)
            return
        if not self.throttle.admit(key, workflow):
            self._postpone(key, workflow)
            return
        op = Operation(
            workflow=workflow,
            pods=pods,
            task_results=self.task_results.by_index("workflow", key),
            config=config,
            settings=self.settings,
            now=self.clock(),
            effects=_ClusterEffects(self, rerun=rerun),
            initless=self._layout_of(workflow),
            process_started=self.started,
        )
        if forgotten and self.settings.has_fault(Fault.DOUBLE_POD_ON_RESTART):
            for pod in forgotten:
                node = op.nodes.get(pod_node_id(pod, op.name))
                if node is not None and node.get("phase") == "Running":
                    node["phase"] = "Pending"  # so a new pod is built for it (fault)
        for node_id in rerun:
            node = op.nodes[node_id]
            if node.get("phase") == "Running" and node_id not in op.pods_by_node_id:
                node["phase"] = "Pending"  # so the hook gets a second pod (fault)
        try:
            reconciling.reconcile(op)
        except errors.WorkflowError as err:
            logger.error("%s Workflow errored: %s", op.prefix, err)
            reconciling.mark_workflow_phase(op, "Error", str(err))
        except (
            Exception
        ) as err:  # like Argo's panic recovery: fail this workflow, keep the controller
            logger.exception("%s Reconciliation crashed.", op.prefix)
            reconciling.mark_workflow_phase(op, "Error", f"{type(err).__name__}: {err}")
        if self.settings.commission is not None and "status" in op.wf:
            commission.apply_status(op.wf["status"], self.settings.commission)
        if self.settings.has_fault(Fault.LABEL_BEFORE_RECORD):
            self._label_before_record(workflow, op.wf, pods)
        stored = workflow
        if op.wf != workflow:
            try:
                stored = self.api.replace_workflow(op.wf)
            except errors.ApiError as err:
                logger.info("%s Workflow update failed, retrying: %s", op.prefix, err)
                self.queue.add_rate_limited(key)
                return
            self.workflows.remember(stored)
            logger.info(
                "%s Workflow updated: phase %s.",
                op.prefix,
                (stored.get("status") or {}).get("phase"),
            )
            if (stored.get("status") or {}).get("phase") in inference.COMPLETED:
                self._delete_task_results(stored)
                self.throttle.release(key)
        self._clean_up(stored, pods, config)
        self.queue.forget(key)
        if op.requeue_after is not None:
            self.queue.add_after(key, op.requeue_after)

    def _postpone(self, key: str, workflow: Json) -> None:
        """Leave a workflow the `parallelism` limit holds back; mark it Pending if new."""
        changed = throttling.postponed(workflow)
        if changed is None:
            logger.debug("[%s] Workflow still waits for a parallelism slot.", key)
            return
        try:
            self.workflows.remember(self.api.replace_workflow(changed))
        except errors.ApiError as err:
            logger.info(
                "[%s] Marking the workflow Pending failed, retrying: %s", key, err
            )
            self.queue.add_rate_limited(key)
            return
        logger.info(
            "[%s] Workflow processing has been postponed due to max parallelism limit.",
            key,
        )

    def _reopen(self, key: str, workflow: Json) -> bool:
        """Write a completed workflow back as Running once, then restore it (a fault)."""
        changed = downtime.reopened(
            workflow, started_at=self.started_at, seen=self._reopened
        )
        if changed is None:
            return False
        try:
            self.workflows.remember(self.api.replace_workflow(changed))
        except errors.ApiError as err:
            logger.info("[%s] Reopening failed, retrying (fault): %s", key, err)
            if changed["status"]["phase"] == "Running":
                self._reopened.pop(str(workflow["metadata"].get("uid") or ""), None)
            self.queue.add_rate_limited(key)
            return True
        logger.info(
            "[%s] Workflow phase written as %s (fault).",
            key,
            changed["status"]["phase"],
        )
        self.queue.add(key)
        return True

    def _label_before_record(
        self, workflow: Json, recorded: Json, pods: list[Json]
    ) -> None:
        """Label the pods of the nodes `recorded` completes, then pause before it is written.

        `label-before-record`: the pods are labelled completed (and lose the status
        finalizer) `faults.LABEL_LEAD_SECONDS` before the Workflow records their nodes
        completed. Their nodes' results are already in `recorded`, so the pods leaving
        the cache once labelled do not make those nodes `pod deleted`.
        """
        name = workflow["metadata"]["name"]
        before = (workflow.get("status") or {}).get("nodes") or {}
        after = (recorded.get("status") or {}).get("nodes") or {}
        labelled = False
        for pod in pods:
            node_id = pod_node_id(pod, name)
            node = after.get(node_id)
            if node is None or not inference.fulfilled(node):
                continue
            if inference.fulfilled(before.get(node_id) or {}):
                continue
            meta = pod["metadata"]
            self.cleaner.enqueue(
                meta["namespace"], meta["name"], decisions.Action.LABEL_COMPLETED
            )
            labelled = True
        if labelled:
            self._stopping.wait(faults.LABEL_LEAD_SECONDS)

    def _without_hook_pods_from_before(
        self, workflow: Json, pods: list[Json]
    ) -> tuple[list[Json], frozenset[str]]:
        """Drop the pods of exit hooks left unfinished by an earlier process (a fault).

        Under `rerun-hook-on-restart`, the pod of a step's or task's exit hook that
        was created before this process started is not adopted while the hook's node is
        not fulfilled. Returns the pods kept and the ids of the hook nodes whose pods
        were dropped, which get a pod of their own (`_ClusterEffects.create_pod`).
        """
        name = workflow["metadata"]["name"]
        nodes = (workflow.get("status") or {}).get("nodes") or {}
        kept: list[Json] = []
        dropped: set[str] = set()
        for pod in pods:
            node = nodes.get(pod_node_id(pod, name))
            if (
                node is not None
                and faults.predates(pod, self.started_at)
                and hooks.is_step_hook_pod(node, name)
                and not inference.fulfilled(node)
            ):
                dropped.add(str(node["id"]))
            else:
                kept.append(pod)
        return kept, frozenset(dropped)

    def _delete_task_results(self, workflow: Json) -> None:
        meta = workflow["metadata"]
        try:
            self.api.delete_task_results(meta["namespace"], meta["name"])
        except errors.ApiError as err:
            logger.warning(
                "[%s/%s] Failed to delete task results: %s",
                meta["namespace"],
                meta["name"],
                err,
            )

    def _clean_up(
        self, workflow: Json, pods: list[Json], config: ControllerConfig
    ) -> None:
        if self.settings.has_fault(Fault.RESTART_SKIPS_CLEANUP):
            pods = [p for p in pods if not faults.predates(p, self.started_at)]
        judged, config_delay = workflow, config.pod_gc_delete_delay_seconds
        per_pod = (
            faults.pod_gc_per_pod(workflow)
            if self.settings.has_fault(Fault.EARLY_WORKFLOW_POD_GC)
            else None
        )
        if per_pod is not None:
            # Each pod goes at once as its node completes (fault).
            judged, config_delay = per_pod, 0.0
        actions = reconciling.after_persist(
            workflow=judged, pods=pods, config_delay=config_delay
        )
        for action, pod, delay in actions:
            if (
                action is decisions.Action.LABEL_COMPLETED
                and self.settings.has_fault(Fault.DELETE_OLD_LAYOUT_PODS)
                and faults.built_initless(pod) != self.initless()
                and (workflow.get("status") or {}).get("phase")
                not in inference.COMPLETED
            ):
                # A pod of the old layout in a workflow still in flight (fault).
                action = decisions.Action.DELETE
            if action is decisions.Action.DELETE and self.settings.has_fault(
                Fault.POD_GC_DELAY_IGNORED
            ):
                delay = 0.0  # deleteDelayDuration ignored (fault)
            self.cleaner.enqueue(
                pod["metadata"]["namespace"], pod["metadata"]["name"], action, delay
            )

    # -- threads ---------------------------------------------------------------------------

    def start(self, stop: threading.Event) -> None:
        """Start caches (workflows before pods, as Argo) and workers; return once they run."""
        self._stopping = stop
        for informer in (self.configmaps, self.workflows):
            _thread(f"informer-{informer.name}", informer.run, stop)
        self.workflows.synced.wait()
        self.throttle.seed()  # `throttle-running` only: from the phase label, once
        for informer in (self.pods, self.task_results):
            _thread(f"informer-{informer.name}", informer.run, stop)
        self.pods.synced.wait()
        self.task_results.synced.wait()
        for index in range(self.settings.workflow_workers):
            _thread(
                f"workflow-worker-{index}",
                self._work,
                stop,
                self.queue,
                self.process_workflow,
            )
        for index in range(self.settings.pod_cleanup_workers):
            _thread(
                f"pod-cleanup-worker-{index}",
                self._work,
                stop,
                self.cleaner.queue,
                self.cleaner.process,
            )
        threading.Thread(
            target=self._stop_queues, args=(stop,), name="queue-stopper", daemon=True
        ).start()
        logger.info(
            "Controller started: %d workflow workers, instanceID %r, %s layout.",
            self.settings.workflow_workers,
            self.startup_config.instance_id,
            "initless" if self.initless() else "legacy",
        )

    def _stop_queues(self, stop: threading.Event) -> None:
        stop.wait()
        self.queue.shutdown()
        self.cleaner.queue.shutdown()

    @staticmethod
    def _work(stop: threading.Event, queue: WorkQueue, process: Any) -> None:
        while not stop.is_set():
            key = queue.get()
            if key is None:
                return
            try:
                process(key)
            except Exception:  # a worker must survive any single bad item
                logger.exception("Processing %s failed; retrying later.", key)
                queue.add_rate_limited(key)
            finally:
                queue.done(key)


class _ClusterEffects:
    """`execution.Effects` backed by the API and the pod clean-up queue."""

    def __init__(
        self, controller: WorkflowController, *, rerun: frozenset[str] = frozenset()
    ) -> None:
        self._controller = controller
        # Ids of the nodes whose earlier pod is ignored (`rerun-hook-on-restart`).
        self._rerun = rerun

    def create_pod(self, pod: Json) -> None:
        annotations = pod["metadata"].get("annotations") or {}
        if self._controller.settings.has_fault(Fault.DOUBLE_POD_ON_RESTART) or (
            annotations.get(common.ANNOTATION_NODE_ID) in self._rerun
        ):
            # A name of this process's own, so the old pod does not answer for it.
            pod["metadata"]["name"] += "-" + self._controller.started_at[11:19].replace(
                ":", ""
            )
        try:
            self._controller.api.create_pod(pod)
        except errors.AlreadyExists:
            return  # deterministic names: the pod from an earlier pass is the same pod

    def terminate_pod(self, namespace: str, name: str) -> None:
        self._controller.cleaner.enqueue(namespace, name, decisions.Action.TERMINATE)

    def delete_pod(self, namespace: str, name: str) -> None:
        self._controller.cleaner.enqueue(namespace, name, decisions.Action.DELETE)


def _thread(name: str, target: Any, *args: Any) -> None:
    threading.Thread(target=target, args=args, name=name, daemon=True).start()
