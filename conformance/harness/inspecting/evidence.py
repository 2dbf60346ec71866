"""Failure evidence for one test: what a maintainer needs without a rerun.

For the test's namespace: every pod's YAML, the events, every container's log
and termination message, the contents of the status marker
(`/var/run/argo/status`, read with `cat` from a running container that mounts
`/var/run/argo`), the workflows; and the log of the test's controller instance
for the test's time window. Each piece is written to a file and returned for
attaching to allure. A piece that cannot be had is recorded as such: evidence
collection never replaces the test's own outcome with an error of its own.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance import contract
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Piece:
    """One file of evidence."""

    name: str
    path: Path
    kind: str
    """"yaml" or "text", for the allure attachment type."""


def _dump(obj: Any, clients: kube.Clients) -> str:
    return yaml.safe_dump(clients.api.sanitize_for_serialization(obj), sort_keys=False)


def _marker(clients: kube.Clients, pod: Any) -> str:
    # Through executing.run: it closes its websocket (an unclosed one is a
    # ResourceWarning, which turned failed tests into teardown errors).
    running = {
        s.name
        for s in pod.status.container_statuses or []
        if s.state and s.state.running
    }
    for container in pod.spec.containers:
        mounts = {m.mount_path for m in container.volume_mounts or []}
        if container.name in running and contract.VAR_RUN_ARGO in mounts:
            result = executing.run(
                clients,
                namespace=pod.metadata.namespace,
                pod=pod.metadata.name,
                container=container.name,
                command=["cat", contract.STATUS_MARKER],
                timeout=Timeouts().api_call,
            )
            out = f"{result.output}# exit code {result.returncode}\n"
            return f"# read from container {container.name}\n{out}"
    return "# no running container mounts /var/run/argo; marker not readable\n"


def _terminations(pod: Any) -> str:
    lines = []
    statuses = (pod.status.init_container_statuses or []) + (
        pod.status.container_statuses or []
    )
    for status in statuses:
        for label, state in (("state", status.state), ("lastState", status.last_state)):
            term = state.terminated if state else None
            if term:
                lines.append(
                    f"{status.name} {label}: reason={term.reason} exitCode={term.exit_code} "
                    f"message={term.message!r}"
                )
    return "\n".join(lines) + "\n"


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:150]


class Collector:
    """Writes evidence files into one directory and remembers them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pieces: list[Piece] = []

    def add(self, name: str, kind: str, produce: Callable[[], str]) -> None:
        """Write `produce()` to `name`; a failure is written down instead."""
        try:
            text = produce()
        except (
            Exception
        ) as exc:  # broad on purpose: evidence must never mask the verdict
            text = f"# evidence unavailable: {type(exc).__name__}: {exc}\n"
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / _safe_name(name)
        path.write_text(text)
        self.pieces.append(Piece(name=name, path=path, kind=kind))


def collect_namespace(
    collector: Collector, clients: kube.Clients, namespace: str
) -> None:
    """Pods, events, logs, termination messages, status markers, workflows."""
    core = clients.core
    collector.add(
        "workflows.yaml",
        "yaml",
        lambda: yaml.safe_dump(
            clients.custom.list_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                namespace,
                contract.WORKFLOWS,
            ),
            sort_keys=False,
        ),
    )
    collector.add(
        "events.txt",
        "text",
        lambda: (
            "\n".join(
                f"{e.last_timestamp or e.event_time} {e.type} {e.reason} "
                f"{e.involved_object.kind}/{e.involved_object.name}: {e.message}"
                for e in core.list_namespaced_event(namespace).items
            )
            + "\n"
        ),
    )
    try:
        pods = core.list_namespaced_pod(namespace).items
    except Exception as exc:  # broad on purpose: evidence must never mask the verdict
        reason = f"# cannot list pods: {type(exc).__name__}: {exc}\n"
        collector.add("pods.txt", "text", lambda: reason)
        return
    for pod in pods:
        name = pod.metadata.name
        collector.add(
            f"pod-{name}.yaml", "yaml", functools.partial(_dump, pod, clients)
        )
        collector.add(
            f"pod-{name}-terminations.txt",
            "text",
            functools.partial(_terminations, pod),
        )
        collector.add(
            f"pod-{name}-status-marker.txt",
            "text",
            functools.partial(_marker, clients, pod),
        )
        containers = [
            c.name for c in (pod.spec.init_containers or []) + pod.spec.containers
        ]
        for container in containers:
            collector.add(
                f"pod-{name}-{container}.log",
                "text",
                functools.partial(_log, core, name, namespace, container),
            )


def _log(core: Any, pod: str, namespace: str, container: str) -> str:
    return str(core.read_namespaced_pod_log(pod, namespace, container=container))


def collect_controller(
    collector: Collector,
    clients: kube.Clients,
    *,
    namespace: str,
    selector: str,
    since_seconds: int,
) -> None:
    """The controller instance's log lines from the test's time window."""
    core = clients.core

    def logs() -> str:
        parts = []
        for pod in core.list_namespaced_pod(namespace, label_selector=selector).items:
            for container in pod.spec.containers:
                text = core.read_namespaced_pod_log(
                    pod.metadata.name,
                    namespace,
                    container=container.name,
                    since_seconds=max(1, since_seconds),
                )
                parts.append(f"# {pod.metadata.name}/{container.name}\n{text}")
        return "\n".join(parts) or f"# no pods match {selector} in {namespace}\n"

    collector.add("controller.log", "text", logs)
