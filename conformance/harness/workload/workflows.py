"""Submit a test's workflows to its layout's controller instance, and wait on them.

Every workflow gets the run's labels and
`workflows.argoproj.io/controller-instanceid=<instance>` so that exactly the
controller instance of the test's layout picks it up.
"""

from __future__ import annotations

import copy
import math
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance import contract
from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster import timing
from conformance.harness.cluster import watching
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import layouts
from conformance.harness.workload.observations import Observations
from plumbing.waiting import NotYet


def workflow_pods(clients: kube.Clients, namespace: str, workflow: str) -> list[Any]:
    """The pods of `workflow`, read from the API (not a cache); timed as "observe"."""
    with timing.timed(timing.OBSERVE):
        pods: list[Any] = clients.core.list_namespaced_pod(
            namespace, label_selector=f"{contract.WORKFLOW_LABEL}={workflow}"
        ).items
    return pods


def step_pods(clients: kube.Clients, namespace: str, workflow: str) -> dict[str, Any]:
    """The pods of `workflow` by step: the last `.` part of their node name."""
    return {
        (p.metadata.annotations or {}).get(contract.NODE_NAME, "").rsplit(".", 1)[-1]: p
        for p in workflow_pods(clients, namespace, workflow)
    }


def named_node(workflow: dict[str, Any], display_name: str) -> dict[str, Any]:
    """The workflow's one node called `display_name`; AssertionError otherwise."""
    nodes = ((workflow.get("status") or {}).get("nodes") or {}).values()
    found = [n for n in nodes if n.get("displayName") == display_name]
    assert len(found) == 1, f"expected one node {display_name!r}: {list(nodes)}"
    result: dict[str, Any] = found[0]
    return result


def assert_succeeded(
    node: dict[str, Any], *, parameters: list[tuple[str, Any]], clause: str
) -> None:
    """AssertionError naming `clause` unless `node` succeeded without a message.

    It also needs exit code "0" and `parameters`, the node's output parameters as
    (name, value), in order.
    """
    outputs = node.get("outputs") or {}
    verdict = (node["phase"], node.get("message", ""))
    assert verdict == ("Succeeded", ""), f"{clause}: node {verdict}"
    assert outputs.get("exitCode") == "0", f"{clause}: outputs {outputs}"
    assert [
        (p["name"], p.get("value")) for p in outputs.get("parameters") or []
    ] == parameters, f"{clause}: outputs {outputs}"


def load_manifest(
    path: Path, *, substitutions: dict[str, str] | None = None
) -> dict[str, Any]:
    """Read one Workflow manifest, filling `${name}` from `substitutions`."""
    try:
        text = string.Template(path.read_text()).substitute(substitutions or {})
        data = yaml.safe_load(text)
    except (OSError, KeyError, ValueError, yaml.YAMLError) as exc:
        raise HarnessError(
            f"cannot read manifest {path}: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != "Workflow":
        raise HarnessError(f"{path} is not a single Workflow manifest")
    return data


def summary(workflow: dict[str, Any]) -> str:
    """Phase, message and node phases: what a wait reports while it waits."""
    status = workflow.get("status") or {}
    nodes = {
        n.get("displayName", i): f"{n.get('phase')} {n.get('message', '')}".strip()
        for i, n in (status.get("nodes") or {}).items()
    }
    return f"phase={status.get('phase')!r} message={status.get('message', '')!r} nodes={nodes}"


@dataclass(frozen=True)
class Workflows:
    """Workflow operations scoped to one test's namespace and layout instance."""

    clients: kube.Clients
    namespace: str
    labels: dict[str, str]
    instance: layouts.Instance
    timeouts: Timeouts

    def submit(self, manifest: dict[str, Any]) -> str:
        """Create the workflow (labelled for the run and the instance); return its name."""
        labels = (manifest.get("metadata") or {}).get("labels") or {}
        return self.create(
            manifest,
            labels={
                **labels,
                **self.labels,
                contract.INSTANCE_LABEL: self.instance.instance_id,
            },
        )

    def create(self, manifest: dict[str, Any], *, labels: dict[str, str]) -> str:
        """Create the workflow with exactly `labels`; return its name.

        For workflows meant for no instance, or for a controller without
        instanceID: the instance label is set only if `labels` has it.
        """
        body = copy.deepcopy(manifest)
        meta = body.setdefault("metadata", {})
        meta.pop("namespace", None)
        if "name" not in meta:
            meta.setdefault("generateName", "wf-")
        meta["labels"] = dict(labels)
        with timing.timed(timing.SUBMIT):
            created = self.clients.custom.create_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                self.namespace,
                contract.WORKFLOWS,
                body,
            )
        return str(created["metadata"]["name"])

    def get(self, name: str) -> dict[str, Any]:
        """The workflow as it is now; timed as "observe"."""
        with timing.timed(timing.OBSERVE):
            result: dict[str, Any] = self.clients.custom.get_namespaced_custom_object(
                contract.WORKFLOW_GROUP,
                contract.WORKFLOW_VERSION,
                self.namespace,
                contract.WORKFLOWS,
                name,
            )
        return result

    def patch(self, name: str, body: dict[str, Any]) -> None:
        """Merge-patch workflow `name` (a label removed with None, `spec.shutdown` set)."""
        self.clients.custom.patch_namespaced_custom_object(
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            self.namespace,
            contract.WORKFLOWS,
            name,
            body,
        )

    def completed(
        self, manifest: dict[str, Any], *, observations: Observations
    ) -> tuple[str, dict[str, Any]]:
        """Submit, wait until completed, record: most scenarios' opening (#8).

        Returns the workflow's name and its completed version, whose phases,
        messages and outputs are now in `observations`.
        """
        name = self.submit(manifest)
        workflow = self.wait_completed(name)
        observations.record_workflow(workflow)
        return name, workflow

    def touched(self, name: str) -> dict[str, Any] | None:
        """What a controller did to workflow `name` (its status, its pods), or None."""
        current = self.get(name)
        listed = workflow_pods(self.clients, self.namespace, name)
        if current.get("status") or listed:
            return {
                "status": current.get("status"),
                "pods": [p.metadata.name for p in listed],
            }
        return None

    def wait_unprocessed(
        self, check: Callable[[], bool | NotYet], *, describe: str
    ) -> None:
        """Wait until `check` has passed on every poll of the unprocessed window.

        For the WPC-INSTANCE clauses: a workflow no instance may process must
        stay without status and pods for `Timeouts.unprocessed_window` (#8).
        """
        window, poll = self.timeouts.unprocessed_window, self.timeouts.poll_interval
        watching.until(
            check,
            timeout=window + self.timeouts.api_call,
            interval=poll,
            consecutive=math.ceil(window / poll) + 1,
            describe=describe,
        )

    def wait_completed(
        self, name: str, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Watch the workflow until its phase is Succeeded, Failed or Error."""

        def completed(obj: dict[str, Any]) -> dict[str, Any] | NotYet:
            phase = (obj.get("status") or {}).get("phase")
            return obj if phase in contract.COMPLETED else NotYet(summary(obj))

        result: dict[str, Any] = watching.watch_until(
            self.clients.custom.list_namespaced_custom_object,
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            self.namespace,
            contract.WORKFLOWS,
            check=completed,
            timeout=timeout
            if timeout is not None
            else self.timeouts.workflow_completed,
            describe=f"workflow {self.namespace}/{name} to complete",
            field_selector=f"metadata.name={name}",
        )
        return result
