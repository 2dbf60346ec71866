"""Shared helpers for the reference controller's unit tests: workflows, pods, a fixed clock."""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest
import yaml

from reference_impl.controller.config import configuration
from reference_impl.controller.config import settings as settings_module
from reference_impl.controller.formats import naming
from reference_impl.controller.runtime import reconciling
from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
NOW = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def workflow(text: str) -> Json:
    """Return a Workflow dict from YAML, with metadata filled in when missing."""
    wf: Json = yaml.safe_load(text)
    wf.setdefault("metadata", {}).setdefault("name", "wf")
    wf["metadata"].setdefault("namespace", "ns")
    wf["metadata"].setdefault("uid", "uid-1")
    return wf


def settings(**overrides: Any) -> settings_module.ControllerSettings:
    """Return settings for tests: a fixed identity and any overrides."""
    return settings_module.ControllerSettings(identity="test", **overrides)


class FakeEffects:
    """Records what an operation asked the cluster to do."""

    def __init__(self) -> None:
        self.created: list[Json] = []
        self.terminated: list[str] = []
        self.deleted: list[str] = []

    def create_pod(self, pod: Json) -> None:
        if all(p["metadata"]["name"] != pod["metadata"]["name"] for p in self.created):
            self.created.append(copy.deepcopy(pod))

    def terminate_pod(self, namespace: str, name: str) -> None:
        self.terminated.append(name)

    def delete_pod(self, namespace: str, name: str) -> None:
        self.deleted.append(name)


class Harness:
    """Drives `reconciling.reconcile` pass by pass against a fake cluster."""

    def __init__(self, wf: Json, **options: Any) -> None:
        self.wf: Json = wf
        self.effects = FakeEffects()
        self.pods: dict[str, Json] = {}
        self.task_results: list[Json] = []
        self.now = options.pop("now", NOW)
        self.config = options.pop("config", configuration.ControllerConfig())
        self.settings = options.pop("settings", settings())
        self.initless = options.pop("initless", False)
        self.process_started: datetime.datetime | None = options.pop(
            "process_started", None
        )
        self.last: Operation | None = None

    def reconcile(self) -> Json:
        pods = [p for p in self.pods.values() if p.get("status")]
        op = Operation(
            workflow=self.wf,
            pods=pods,
            task_results=self.task_results,
            config=self.config,
            settings=self.settings,
            now=self.now,
            effects=self.effects,
            initless=self.initless,
            process_started=self.process_started,
        )
        reconciling.reconcile(op)
        self.wf, self.last = op.wf, op
        for pod in self.effects.created:
            self.pods.setdefault(pod["metadata"]["name"], copy.deepcopy(pod))
        return self.wf

    def node(self, name: str) -> Json:
        node: Json = self.wf["status"]["nodes"][
            naming.node_id(self.wf["metadata"]["name"], name)
        ]
        return node

    def pod_of(self, node_name: str) -> Json:
        node_id = naming.node_id(self.wf["metadata"]["name"], node_name)
        for pod in self.pods.values():
            if (
                pod["metadata"]["annotations"]["workflows.argoproj.io/node-id"]
                == node_id
            ):
                return pod
        raise KeyError(node_name)

    def set_pod(self, node_name: str, status: Json) -> None:
        self.pod_of(node_name)["status"] = status

    def succeed(self, node_name: str, *, outputs: Json | None = None) -> None:
        self.set_pod(
            node_name, pod_status("Succeeded", main=terminated(0), wait=terminated(0))
        )
        self.report(node_name, outputs=outputs)

    def fail(self, node_name: str, code: int = 1) -> None:
        self.set_pod(
            node_name,
            pod_status(
                "Failed", main=terminated(code, reason="Error"), wait=terminated(0)
            ),
        )
        self.report(node_name)

    def report(
        self, node_name: str, *, outputs: Json | None = None, complete: bool = True
    ) -> None:
        name = naming.node_id(self.wf["metadata"]["name"], node_name)
        self.task_results = [
            t for t in self.task_results if t["metadata"]["name"] != name
        ]
        self.task_results.append(
            {
                "metadata": {
                    "name": name,
                    "namespace": "ns",
                    "labels": {
                        "workflows.argoproj.io/workflow": self.wf["metadata"]["name"],
                        "workflows.argoproj.io/report-outputs-completed": "true"
                        if complete
                        else "false",
                    },
                },
                "outputs": outputs or {},
            }
        )


def terminated(
    code: int,
    *,
    reason: str = "Completed",
    message: str = "",
    finished: str = "2026-01-02T03:04:00Z",
) -> Json:
    state: Json = {"exitCode": code, "reason": reason, "finishedAt": finished}
    if message:
        state["message"] = message
    return {"terminated": state}


def running() -> Json:
    return {"running": {"startedAt": "2026-01-02T03:00:00Z"}}


def waiting(reason: str, message: str = "") -> Json:
    return {"waiting": {"reason": reason, "message": message}}


def pod_status(
    phase: str,
    *,
    message: str = "",
    reason: str = "",
    aux: str = "wait",
    init: Json | None = None,
    **states: Json,
) -> Json:
    """Return a pod status; keyword arguments map container names (`main`, `wait`, ...) to states."""
    statuses = []
    for name, state in states.items():
        statuses.append({"name": aux if name == "wait" else name, "state": state})
    status: Json = {"phase": phase, "containerStatuses": statuses}
    if message:
        status["message"] = message
    if reason:
        status["reason"] = reason
    if init is not None:
        status["initContainerStatuses"] = [
            {"name": n, "state": s} for n, s in init.items()
        ]
    return status


@pytest.fixture
def hello_world() -> Json:
    return workflow(
        """
metadata: {name: hello}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: busybox:1.36, command: [echo, hello]}
"""
    )
