"""One layout's run: N one-pod workflows, at most `concurrency` in flight.

The loop keeps `concurrency` workflows submitted, and submits the next one as
soon as a watch event shows one finished (Succeeded, Failed or Error); only
then does it read the finished workflow's pod and main log, so collecting
never delays a submission. It waits only on the event queue, with the nearest
workflow deadline as its timeout: a workflow without a phase after
`workflow_picked_up` stops the run (no controller serves the layout); one
unfinished after `workflow_completed` is counted as a failure, with its last
observed state.
"""

from __future__ import annotations

import json
import logging
import queue
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from kubernetes.client.exceptions import ApiException

from reference_impl import common
from reference_impl.bench import clocks
from reference_impl.bench import evidence
from reference_impl.bench import manifests
from reference_impl.bench import samples
from reference_impl.bench import watching
from reference_impl.bench.errors import BenchError
from reference_impl.bench.errors import MarkerError
from reference_impl.bench.errors import WaitTimeout
from reference_impl.bench.results import LayoutResult
from reference_impl.bench.settings import BenchSettings

Json = dict[str, Any]
logger = logging.getLogger(__name__)

FINISHED = frozenset({"Succeeded", "Failed", "Error"})


@dataclass
class _Flight:
    """What the loop knows about one submitted workflow."""

    name: str
    submitted_boot: float
    phase: str = ""
    message: str = ""
    pod_name: str | None = None
    pod_state: str = "no pod seen"
    pod_seen_boot: float | None = None
    pod_seen_wall: float | None = None
    finished_boot: float | None = None

    def describe(self) -> str:
        return (
            f"workflow {self.name} phase={self.phase or '(none)'} "
            f"message={self.message!r}; pod {self.pod_name}: {self.pod_state}"
        )


class _Run:
    """The submission loop of one layout (one instance per layout)."""

    def __init__(
        self,
        core: Any,
        custom: Any,
        *,
        namespace: str,
        layout: str,
        settings: BenchSettings,
    ) -> None:
        self.core = core
        self.custom = custom
        self.namespace = namespace
        self.layout = layout
        self.settings = settings
        self.timeouts = settings.timeouts
        self.queue: queue.Queue[watching.Item] = queue.Queue()
        self.flying: dict[str, _Flight] = {}
        self.finished: list[_Flight] = []
        self.submitted = 0
        instance = settings.instance_ids[layout]
        self.result = LayoutResult(
            layout=layout,
            instance_id=instance,
            count=settings.count,
            concurrency=settings.concurrency,
        )
        self.body = manifests.workflow(
            layout=layout,
            instance_id=instance,
            session_id=settings.session_id,
            image=settings.image,
        )

    def _submit(self) -> None:
        boot = clocks.boottime()
        created = self.custom.create_namespaced_custom_object(
            common.GROUP,
            "v1alpha1",
            self.namespace,
            "workflows",
            self.body,
            _request_timeout=self.timeouts.api_request,
        )
        name = created["metadata"]["name"]
        self.flying[name] = _Flight(name=name, submitted_boot=boot)
        self.submitted += 1
        if self.result.first_submit_boot is None:
            self.result.first_submit_boot = boot
        logger.info(
            "[%s/%s] Submitted (%d/%d).",
            self.namespace,
            name,
            self.submitted,
            self.settings.count,
        )

    def _on_event(self, event: watching.Event) -> None:
        metadata = event.obj.get("metadata") or {}
        if event.kind == "pod":
            flight = self.flying.get(
                (metadata.get("labels") or {}).get(common.LABEL_WORKFLOW, "")
            )
            if flight is None:
                return
            if flight.pod_seen_boot is None:
                flight.pod_seen_boot, flight.pod_seen_wall = event.boot, event.wall
                flight.pod_name = metadata.get("name")
            flight.pod_state = evidence.pod_state(event.obj)
            return
        flight = self.flying.get(metadata.get("name", ""))
        if flight is None:
            return
        status = event.obj.get("status") or {}
        flight.phase = status.get("phase") or ""
        flight.message = status.get("message") or ""
        if flight.phase in FINISHED:
            flight.finished_boot = event.boot
            del self.flying[flight.name]
            self.finished.append(flight)

    def _check_deadlines(self) -> None:
        now = clocks.boottime()
        for flight in list(self.flying.values()):
            age = now - flight.submitted_boot
            if not flight.phase and age >= self.timeouts.workflow_picked_up:
                raise WaitTimeout(
                    describe=(
                        f"a controller with instance ID "
                        f"{self.result.instance_id} to pick up {flight.name}"
                    ),
                    timeout=self.timeouts.workflow_picked_up,
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
        now = clocks.boottime()
        remaining = [self.timeouts.watch_window]
        for flight in self.flying.values():
            limit = (
                self.timeouts.workflow_completed
                if flight.phase
                else min(
                    self.timeouts.workflow_picked_up, self.timeouts.workflow_completed
                )
            )
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
                "pod": evidence.failed_pod(
                    self.core,
                    namespace=self.namespace,
                    pod_name=flight.pod_name,
                    timeouts=self.timeouts,
                ),
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
        pod, log = self._read_pod(flight)
        observed = samples.Observed(
            workflow=flight.name,
            submitted_boot=flight.submitted_boot,
            pod_seen_boot=flight.pod_seen_boot,
            pod_seen_wall=flight.pod_seen_wall,
            finished_boot=flight.finished_boot,
            phase=flight.phase,
        )
        try:
            sample = samples.measure(
                observed, pod=pod, log=log, boot_epoch=self.result.boot_epoch
            )
        except MarkerError as exc:
            self._fail(flight, str(exc))
            return
        self.result.samples.append(sample)

    def _read_pod(self, flight: _Flight) -> tuple[Json | None, str | None]:
        timeout = self.timeouts.api_request
        try:
            if flight.pod_name is None:
                # The watch has not delivered the pod yet; find it by its label.
                found = (
                    json.loads(
                        self.core.list_namespaced_pod(
                            self.namespace,
                            label_selector=f"{common.LABEL_WORKFLOW}={flight.name}",
                            _preload_content=False,
                            _request_timeout=timeout,
                        ).data
                    ).get("items")
                    or []
                )
                if len(found) != 1:
                    flight.pod_state += f"; {len(found)} pods found by label"
                    return None, None
                flight.pod_name = found[0]["metadata"]["name"]
            pod = json.loads(
                self.core.read_namespaced_pod(
                    flight.pod_name,
                    self.namespace,
                    _preload_content=False,
                    _request_timeout=timeout,
                ).data
            )
            log = self.core.read_namespaced_pod_log(
                flight.pod_name,
                self.namespace,
                container=common.MAIN,
                _request_timeout=timeout,
            )
        except ApiException as exc:
            flight.pod_state += f"; reading pod/log failed: {exc.status} {exc.reason}"
            return None, None
        return pod, str(log)

    def run(self) -> LayoutResult:
        selector = (
            f"{manifests.session_selector(self.settings.session_id)},"
            f"{manifests.LAYOUT}={self.layout}"
        )
        pumps = [
            watching.Pump(
                kind="pod",
                list_call=partial(self.core.list_namespaced_pod, self.namespace),
                label_selector=selector,
                out=self.queue,
                timeouts=self.timeouts,
            ),
            watching.Pump(
                kind="workflow",
                list_call=partial(
                    self.custom.list_namespaced_custom_object,
                    common.GROUP,
                    "v1alpha1",
                    self.namespace,
                    "workflows",
                ),
                label_selector=selector,
                out=self.queue,
                timeouts=self.timeouts,
            ),
        ]
        for pump in pumps:
            pump.start()
        try:
            for pump in pumps:
                if not pump.ready.wait(self.timeouts.api_request):
                    raise WaitTimeout(
                        describe=f"the initial {pump.kind} list",
                        timeout=self.timeouts.api_request,
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
        self.result.boot_epoch = clocks.boot_epoch()
        while True:
            while (
                len(self.flying) < self.settings.concurrency
                and self.submitted < self.settings.count
            ):
                self._submit()
            while self.finished:
                self._collect(self.finished.pop(0))
            if not self.flying and self.submitted >= self.settings.count:
                return
            try:
                item = self.queue.get(timeout=self._next_deadline())
            except queue.Empty:
                self._check_deadlines()
                continue
            if isinstance(item, watching.WatchFailed):
                raise BenchError(f"the {item.kind} watch failed: {item.error!r}") from (
                    item.error
                )
            self._on_event(item)
            self._check_deadlines()


def run_layout(
    core: Any, custom: Any, *, namespace: str, layout: str, settings: BenchSettings
) -> LayoutResult:
    """Run one layout's workflows and return its measurements."""
    started = time.monotonic()
    load_before = evidence.load_snapshot(core, settings)
    result = _Run(
        core, custom, namespace=namespace, layout=layout, settings=settings
    ).run()
    result.load = {
        "before": load_before,
        "after": evidence.load_snapshot(core, settings),
    }
    logger.info(
        "[%s] Layout %s done in %.1fs: %d samples, %d failures.",
        namespace,
        layout,
        time.monotonic() - started,
        len(result.samples),
        len(result.failures),
    )
    return result
