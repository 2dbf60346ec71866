"""Readers of pods: container states, the pods of a workflow's steps, spec parts.

Scenarios judge pods by their container statuses and by what the controller
wrote into their specs; these readers are the shared vocabulary for both, so
a scenario says `pods.terminated(pod, "main")` instead of walking the status.
A reader that finds the pod not (yet) in the state asked for raises
AssertionError, so it works inside `until()` and as a test's verdict alike.
"""

from __future__ import annotations

import json
from typing import Any

from conformance import contract
from conformance.harness.cluster import kube


def status_of(pod: Any, container: str) -> Any:
    """The container status of `container`; AssertionError if the pod has none."""
    statuses = (pod.status.init_container_statuses or []) + (
        pod.status.container_statuses or []
    )
    for status in statuses:
        if status.name == container:
            return status
    raise AssertionError(f"{pod.metadata.name} has no container {container!r}")


def terminated(pod: Any, container: str) -> Any:
    """The `terminated` state of `container`; AssertionError while it runs."""
    status = status_of(pod, container)
    state = status.state.terminated if status.state else None
    assert state, f"{pod.metadata.name}/{container} has not terminated: {status.state}"
    return state


def running(pod: Any, *containers: str) -> bool:
    """True when every one of `containers` is running."""
    states = {
        s.name: bool(s.state and s.state.running)
        for s in pod.status.container_statuses or []
    }
    return all(states.get(c) for c in containers)


def terminations(pod: Any) -> dict[str, Any]:
    """Container name -> its `terminated` state (None while it runs)."""
    return {
        s.name: s.state.terminated if s.state else None
        for s in pod.status.container_statuses or []
    }


def only_pod(clients: kube.Clients, namespace: str, workflow: str) -> Any:
    """The one pod of `workflow`; AssertionError if there is not exactly one."""
    found = clients.core.list_namespaced_pod(
        namespace, label_selector=f"{contract.WORKFLOW_LABEL}={workflow}"
    ).items
    assert len(found) == 1, f"{workflow}: expected one pod, found {len(found)}"
    return found[0]


def only_pod_json(
    clients: kube.Clients, namespace: str, workflow: str
) -> dict[str, Any]:
    """The one pod of `workflow` as API JSON; AssertionError naming the pods otherwise.

    API JSON (camelCase dicts) because the pod-shape clauses name the pod's
    fields as the API spells them.
    """
    found = clients.core.list_namespaced_pod(
        namespace, label_selector=f"{contract.WORKFLOW_LABEL}={workflow}"
    ).items
    assert len(found) == 1, [p.metadata.name for p in found]
    result: dict[str, Any] = clients.api.sanitize_for_serialization(found[0])
    return result


def all_terminated(
    clients: kube.Clients, namespace: str, workflow: str
) -> dict[str, Any]:
    """Container name -> `terminated` state of the workflow's one pod, all ended."""
    states = terminations(only_pod(clients, namespace, workflow))
    assert all(states.values()), f"{workflow}: containers still running: {states}"
    return states


def by_display_name(
    clients: kube.Clients, namespace: str, workflow: dict[str, Any]
) -> dict[str, Any]:
    """The pods of a workflow by their node's display name (its status' nodes)."""
    nodes = (workflow.get("status") or {}).get("nodes") or {}
    found = clients.core.list_namespaced_pod(
        namespace,
        label_selector=f"{contract.WORKFLOW_LABEL}={workflow['metadata']['name']}",
    ).items
    by_step = {}
    for pod in found:
        node_id = (pod.metadata.annotations or {}).get(contract.NODE_ID)
        if node_id in nodes:
            by_step[nodes[node_id]["displayName"]] = pod
    return by_step


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    """Name -> value (or valueFrom) of a container spec; the first of a name wins."""
    env: dict[str, Any] = {}
    for var in container.get("env") or []:
        env.setdefault(var["name"], var.get("value", var.get("valueFrom")))
    return env


def behind_emissary(container: dict[str, Any], emissary: str) -> list[Any] | None:
    """[original command, args] behind `<emissary> emissary ... --`, or None."""
    command = container.get("command") or []
    if command[:2] != [emissary, "emissary"] or "--" not in command:
        return None
    return [command[command.index("--") + 1 :], container.get("args")]


OFFLOADED = "offloaded"
"""What `ARGO_TEMPLATE` holds when the template is too large for the env."""


def is_template_json(text: Any, *, name: str, kind: str = "container") -> bool:
    """True for a template as JSON (its `name` and its `kind` key), or `OFFLOADED`."""
    if text == OFFLOADED:
        return True
    try:
        data = json.loads(str(text))
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("name") == name and kind in data


def layout_of(pod: dict[str, Any]) -> str:
    """The layout a pod's shape (API JSON) shows (WPC-LAYOUT-001 and -002)."""
    inits = {c["name"] for c in pod["spec"].get("initContainers") or []}
    containers = {c["name"] for c in pod["spec"]["containers"]}
    if "init" in inits and "wait" in containers and "supervisor" not in containers:
        return contract.LEGACY
    if "init" not in inits and "supervisor" in containers and "wait" not in containers:
        return contract.INITLESS
    return f"unknown (init containers {sorted(inits)}, containers {sorted(containers)})"


def owning_deployment(clients: kube.Clients, namespace: str, pod: Any) -> str | None:
    """The Deployment that runs `pod` through its ReplicaSet, or None (a bare pod)."""
    from kubernetes import client

    apps: Any = client.AppsV1Api(clients.api)
    owner = next(
        (r for r in pod.metadata.owner_references or [] if r.kind == "ReplicaSet"), None
    )
    if owner is None:
        return None
    replica_set = apps.read_namespaced_replica_set(owner.name, namespace)
    deployment = next(
        (
            r
            for r in replica_set.metadata.owner_references or []
            if r.kind == "Deployment"
        ),
        None,
    )
    return str(deployment.name) if deployment is not None else None
