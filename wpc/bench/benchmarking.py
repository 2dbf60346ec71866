"""One layout's run: N one-pod workflows, at most `inflight` in flight.

The loop keeps `inflight` workflows submitted, and submits the next one as
soon as a watch event shows one finished (Succeeded, Failed or Error); only
then does it read the finished workflow's pod and main log, so collecting
never delays a submission. Every pod and workflow event is checked for the
milestones it shows for the first time (`workloads.POD_MILESTONES`, and the
pod node's completion), stamped with its arrival on the boot clock. The loop
waits only on the event queue, with the nearest workflow deadline as its
timeout: a workflow without a phase after `picked_up` stops the run (no
controller serves the layout); one unfinished after `workflow_completed`
counts as a failure, with its last observed state.
"""

from __future__ import annotations

import json
import logging
import queue
import time
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from typing import Any

from kubernetes.client.exceptions import ApiException

from conformance import contract
from conformance.errors import BenchError
from conformance.errors import WaitTimeout
from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import Workflows
from wpc.bench import moments
from wpc.bench import samples
from wpc.bench import streaming
from wpc.bench import workloads
from wpc.bench.results import LayoutResult
from wpc.bench.settings import BenchSettings

Json = dict[str, Any]
logger = logging.getLogger(__name__)


@dataclass
class _Flight:
    """What the loop knows about one submitted workflow."""

    name: str
    submitted_boot: float
    phase: str = ""
    message: str = ""
    pod_name: str | None = None
    pod_state: str = "no pod seen"
    seen_boot: dict[str, float] = field(default_factory=dict)
    stamps: dict[str, str] = field(default_factory=dict)
    finished_boot: float | None = None
    workflow: Json | None = None

    def describe(self) -> str:
        return (
            f"workflow {self.name} phase={self.phase or '(none)'} "
            f"message={self.message!r}; pod {self.pod_name}: {self.pod_state}"
        )


class _Run:
    """The submission loop of one layout, against that layout's instance."""

    def __init__(
        self,
        clients: kube.Clients,
        workflows: Workflows,
        *,
        image: str,
        settings: BenchSettings,
    ) -> None:
        self.clients = clients
        self.workflows = workflows
        self.namespace = workflows.namespace
        self.settings = settings
        self.timeouts = settings.timeouts
        self.queue: queue.Queue[streaming.Item] = queue.Queue()
        self.flying: dict[str, _Flight] = {}
        self.finished: list[_Flight] = []
        self.submitted = 0
        instance = workflows.instance
        self.result = LayoutResult(
            layout=instance.layout,
            instance_id=instance.instance_id,
            namespace=self.namespace,
            count=settings.workflows,
            inflight=settings.inflight,
        )
        self.body = workloads.workflow(
            image=image, layout=instance.layout, labels=workflows.labels
        )

    def _submit(self) -> None:
        boot = moments.boottime()
        name = self.workflows.submit(self.body)
        self.flying[name] = _Flight(name=name, submitted_boot=boot)
        self.submitted += 1
        if self.result.first_submit_boot is None:
            self.result.first_submit_boot = boot
        logger.info(
            "[%s/%s] Submitted (%d/%d).",
            self.namespace,
            name,
            self.submitted,
            self.settings.workflows,
        )

    def _on_pod(self, event: streaming.Event) -> None:
        metadata = event.obj.get("metadata") or {}
        labels = metadata.get("labels") or {}
        flight = self.flying.get(labels.get(contract.WORKFLOW_LABEL, ""))
        if flight is None:
            return
        flight.pod_name = flight.pod_name or metadata.get("name")
        flight.pod_state = workloads.pod_state(event.obj)
        for milestone, stamp in workloads.reached(event.obj).items():
            if milestone not in flight.seen_boot:
                flight.seen_boot[milestone] = event.boot
                flight.stamps[milestone] = stamp

    def _on_workflow(self, event: streaming.Event) -> None:
        flight = self.flying.get((event.obj.get("metadata") or {}).get("name", ""))
        if flight is None:
            return
        status = event.obj.get("status") or {}
        flight.phase = status.get("phase") or ""
        flight.message = status.get("message") or ""
        flight.workflow = event.obj
        if workloads.node_done(event.obj):
            flight.seen_boot.setdefault("node_completed", event.boot)
        if flight.phase in contract.COMPLETED:
            flight.finished_boot = event.boot
            del self.flying[flight.name]
            self.finished.append(flight)

    def _check_deadlines(self) -> None:
        now = moments.boottime()
        for flight in list(self.flying.values()):
            age = now - flight.submitted_boot
            if not flight.phase and age >= self.settings.picked_up:
                raise WaitTimeout(
                    describe=(
                        f"a controller with instance ID "
                        f"{self.result.instance_id} to pick up {flight.name}"
                    ),
                    timeout=self.settings.picked_up,
                    last_observed=flight.describe(),
                )
            if age >= self.timeouts.workflow_completed:
                del self.flying[flight.name]
                self._fail(
                    flight,
                    f"not finished within workflow_completed="
                    f"{self.timeouts.workflow_completed:g}s",
                )
                self._finished_at(now)

    def _next_deadline(self) -> float:
        now = moments.boottime()
        remaining = [self.settings.watch_window]
        for flight in self.flying.values():
            limit = self.timeouts.workflow_completed
            if not flight.phase:
                limit = min(self.settings.picked_up, limit)
            remaining.append(flight.submitted_boot + limit - now)
        return max(0.0, min(remaining))

    def _fail(self, flight: _Flight, reason: str) -> None:
        logger.warning(
            "[%s/%s] Counted as a failure: %s", self.namespace, flight.name, reason
        )
        self.result.failures.append(
            {
                "workflow": flight.name,
                "reason": reason,
                "last_observed": flight.describe(),
            }
        )

    def _finished_at(self, boot: float) -> None:
        last = self.result.last_finish_boot
        self.result.last_finish_boot = boot if last is None else max(last, boot)

    def _collect(self, flight: _Flight) -> None:
        if flight.finished_boot is not None:
            self._finished_at(flight.finished_boot)
        if flight.phase != "Succeeded":
            self._fail(flight, f"workflow phase {flight.phase}: {flight.message}")
            return
        try:
            pod, log = self._read_pod(flight)
        except ApiException as exc:
            self._fail(flight, f"reading its pod failed: {exc.status} {exc.reason}")
            return
        observed = samples.Observed(
            workflow=flight.name,
            submitted_boot=flight.submitted_boot,
            seen_boot=dict(flight.seen_boot),
            stamps=dict(flight.stamps),
            finished_boot=flight.finished_boot,
            phase=flight.phase,
        )
        try:
            sample = samples.measure(
                observed,
                pod=pod,
                workflow=flight.workflow,
                log=log,
                boot_epoch=self.result.boot_epoch,
            )
        except BenchError as exc:
            self._fail(flight, str(exc))
            return
        self.result.samples.append(sample)

    def _read_pod(self, flight: _Flight) -> tuple[Json, str]:
        core = self.clients.core
        timeout = self.timeouts.api_call
        if flight.pod_name is None:
            # The watch has not delivered the pod yet; find it by its label.
            found = (
                json.loads(
                    core.list_namespaced_pod(
                        self.namespace,
                        label_selector=f"{contract.WORKFLOW_LABEL}={flight.name}",
                        _preload_content=False,
                        _request_timeout=timeout,
                    ).data
                ).get("items")
                or []
            )
            if len(found) != 1:
                raise BenchError(f"{flight.name}: {len(found)} pods found by label")
            flight.pod_name = found[0]["metadata"]["name"]
        pod = json.loads(
            core.read_namespaced_pod(
                flight.pod_name,
                self.namespace,
                _preload_content=False,
                _request_timeout=timeout,
            ).data
        )
        log = core.read_namespaced_pod_log(
            flight.pod_name,
            self.namespace,
            container=contract.MAIN,
            _request_timeout=timeout,
        )
        return pod, str(log)

    def _pump(self, kind: str, list_call: Any) -> streaming.Pump:
        return streaming.Pump(
            kind=kind,
            list_call=list_call,
            label_selector=kube.session_selector(self.workflows.labels[kube.SESSION]),
            out=self.queue,
            watch_window=self.settings.watch_window,
            api_call=self.timeouts.api_call,
        )

    def run(self) -> LayoutResult:
        custom = self.clients.custom
        pumps = [
            self._pump(
                "pod", partial(self.clients.core.list_namespaced_pod, self.namespace)
            ),
            self._pump(
                "workflow",
                partial(
                    custom.list_namespaced_custom_object,
                    contract.WORKFLOW_GROUP,
                    contract.WORKFLOW_VERSION,
                    self.namespace,
                    contract.WORKFLOWS,
                ),
            ),
        ]
        for pump in pumps:
            pump.start()
        try:
            for pump in pumps:
                if not pump.ready.wait(self.timeouts.api_call):
                    raise WaitTimeout(
                        describe=f"the initial {pump.kind} list",
                        timeout=self.timeouts.api_call,
                        last_observed="the list request has not returned",
                    )
            self._loop()
        finally:
            for pump in pumps:
                pump.stop()
            for pump in pumps:
                if not pump.join():
                    logger.warning(
                        "[%s] The %s watch did not stop within one window; "
                        "leaving its daemon thread behind.",
                        self.namespace,
                        pump.kind,
                    )
        return self.result

    def _loop(self) -> None:
        self.result.boot_epoch = moments.boot_epoch()
        while True:
            while (
                len(self.flying) < self.settings.inflight
                and self.submitted < self.settings.workflows
            ):
                self._submit()
            while self.finished:
                self._collect(self.finished.pop(0))
            if not self.flying and self.submitted >= self.settings.workflows:
                return
            try:
                item = self.queue.get(timeout=self._next_deadline())
            except queue.Empty:
                self._check_deadlines()
                continue
            if isinstance(item, streaming.WatchFailed):
                raise BenchError(
                    f"the {item.kind} watch failed: {item.error!r}"
                ) from item.error
            if item.kind == "pod":
                self._on_pod(item)
            else:
                self._on_workflow(item)
            self._check_deadlines()


def run_layout(
    clients: kube.Clients,
    workflows: Workflows,
    *,
    image: str,
    settings: BenchSettings,
) -> LayoutResult:
    """Run one layout's workflows in `workflows`' namespace; return its measurements."""
    started = time.monotonic()
    result = _Run(clients, workflows, image=image, settings=settings).run()
    logger.info(
        "[%s] Layout %s done in %.1fs: %d samples, %d failures.",
        workflows.namespace,
        result.layout,
        time.monotonic() - started,
        len(result.samples),
        len(result.failures),
    )
    return result
