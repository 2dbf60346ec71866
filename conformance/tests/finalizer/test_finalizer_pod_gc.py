"""FinalizerPodGc: `spec.podGC` deletes exactly the pods its strategy names, never early.

We test these aspects on a two-step workflow (`first` exits 0, then `second`
exits with a parameter), recording every version of the pods; a pod's delete
request time is its `deletionTimestamp` minus `deletionGracePeriodSeconds`
(both whole seconds, like the `finishedAt` they are compared with, so a
conformant implementation is never judged early):

- `OnPodCompletion`, second step failing: both pods are deleted, neither
  before its node finished; `OnPodSuccess` with `deleteDelayDuration: 20s`,
  second step failing: `first` is deleted no earlier than 20 s after its node
  finished, `second` is kept and labelled completed (WPC-FINALIZER-010);
- `OnWorkflowCompletion`, failing: both pods are deleted, neither before the
  workflow finished; `OnWorkflowSuccess`, succeeding: both deleted;
  `OnWorkflowSuccess`, failing: both kept and labelled completed
  (WPC-FINALIZER-011).

Matrix: legacy and initless.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.inspecting import recording

DELAY = 20
NODE_NAME = "workflows.argoproj.io/node-name"
COMPLETED_LABEL = "workflows.argoproj.io/completed"
Doc = dict[str, Any]


def _variant(base: Doc, label: str, pod_gc: dict[str, str], code: str) -> Doc:
    doc = copy.deepcopy(base)
    doc["metadata"] = {"generateName": f"pod-gc-{label}-"}
    doc["spec"]["podGC"] = pod_gc
    doc["spec"]["arguments"]["parameters"][0]["value"] = code
    return doc


def _time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _step(meta: dict[str, Any]) -> str:
    return str((meta.get("annotations") or {}).get(NODE_NAME, "")).rsplit(".", 1)[-1]


def _delete_requests(
    events: list[recording.Event], workflow: str
) -> dict[str, datetime.datetime]:
    """Step -> when the first delete of its pod was requested."""
    found: dict[str, datetime.datetime] = {}
    for event in events:
        meta = event.obj["metadata"]
        if (meta.get("labels") or {}).get("workflows.argoproj.io/workflow") != workflow:
            continue
        if meta.get("deletionTimestamp") and _step(meta) not in found:
            grace = datetime.timedelta(
                seconds=meta.get("deletionGracePeriodSeconds") or 0
            )
            found[_step(meta)] = _time(meta["deletionTimestamp"]) - grace
    return found


def _pods(kube_clients: kube.Clients, namespace: str, workflow: str) -> dict[str, Any]:
    pods = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={workflow}"
    ).items
    return {
        _step(p.metadata.to_dict() | {"annotations": p.metadata.annotations}): p
        for p in pods
    }


def _settled(
    kube_clients: kube.Clients,
    namespace: str,
    expected: dict[str, tuple[str, set[str]]],
) -> bool | NotYet:
    """Every workflow has exactly its kept pods left, each labelled completed."""
    seen = {}
    for name, (_, kept) in expected.items():
        pods = _pods(kube_clients, namespace, name)
        seen[name] = {
            s: (p.metadata.labels.get(COMPLETED_LABEL), p.metadata.deletion_timestamp)
            for s, p in pods.items()
        }
        if set(pods) != kept or any(
            label != "true" or deleting for label, deleting in seen[name].values()
        ):
            return NotYet(seen)
    return True


def _run(
    workflows: Any,
    kube_clients: kube.Clients,
    namespace: str,
    docs: dict[str, Doc],
    kept: dict[str, set[str]],
    timeouts: Any,
) -> tuple[dict[str, Doc], dict[str, dict[str, datetime.datetime]]]:
    """Submit, wait, and return label -> workflow and label -> delete requests."""
    with recording.Recorder.pods(kube_clients, namespace) as recorder:
        names = {label: workflows.submit(doc) for label, doc in docs.items()}
        done = {label: workflows.wait_completed(name) for label, name in names.items()}
        until(
            lambda: _settled(
                kube_clients, namespace, {names[k]: (k, kept[k]) for k in names}
            ),
            timeout=DELAY + timeouts.cleanup,
            interval=timeouts.poll_interval,
            describe="pod GC to delete exactly the pods its strategies name",
            consecutive=3,
        )
    events = recorder.events()
    return done, {label: _delete_requests(events, names[label]) for label in names}


def _finished(workflow: Doc, step: str | None = None) -> datetime.datetime:
    status = workflow["status"]
    if step is None:
        return _time(status["finishedAt"])
    node = next(n for n in status["nodes"].values() if n.get("displayName") == step)
    return _time(node["finishedAt"])


@pytest.mark.conformance(short_name="FinalizerPodGc", clauses=["WPC-FINALIZER-010"])
def test_pod_completion_strategies_delete_pods_after_their_nodes_and_the_delay(
    workflows, manifest, kube_clients, namespace, timeouts
):
    base = manifest()
    docs = {
        "pod-completion": _variant(
            base, "pod-completion", {"strategy": "OnPodCompletion"}, "1"
        ),
        "pod-success": _variant(
            base,
            "pod-success",
            {"strategy": "OnPodSuccess", "deleteDelayDuration": f"{DELAY}s"},
            "1",
        ),
    }
    kept = {"pod-completion": set(), "pod-success": {"second"}}
    done, requests = _run(workflows, kube_clients, namespace, docs, kept, timeouts)

    early = []
    for label, delay in (("pod-completion", 0), ("pod-success", DELAY)):
        for step, requested in requests[label].items():
            earliest = _finished(done[label], step) + datetime.timedelta(seconds=delay)
            if requested < earliest:
                early.append(
                    f"{label}/{step}: deleted at {requested}, before {earliest}"
                )
    assert not early, "WPC-FINALIZER-010: pods deleted early:\n" + "\n".join(early)
    assert set(requests["pod-success"]) == {"first"}, requests["pod-success"]


@pytest.mark.conformance(short_name="FinalizerPodGc", clauses=["WPC-FINALIZER-011"])
def test_workflow_completion_strategies_delete_pods_only_after_the_workflow(
    workflows, manifest, kube_clients, namespace, timeouts
):
    base = manifest()
    docs = {
        "wf-completion": _variant(
            base, "wf-completion", {"strategy": "OnWorkflowCompletion"}, "1"
        ),
        "wf-success": _variant(
            base, "wf-success", {"strategy": "OnWorkflowSuccess"}, "0"
        ),
        "wf-success-failed": _variant(
            base, "wf-success-failed", {"strategy": "OnWorkflowSuccess"}, "1"
        ),
    }
    kept = {
        "wf-completion": set(),
        "wf-success": set(),
        "wf-success-failed": {"first", "second"},
    }
    done, requests = _run(workflows, kube_clients, namespace, docs, kept, timeouts)

    early = [
        f"{label}/{step}: deleted at {requested}, before the workflow finished"
        for label in ("wf-completion", "wf-success")
        for step, requested in requests[label].items()
        if requested < _finished(done[label])
    ]
    assert not early, "WPC-FINALIZER-011: pods deleted early:\n" + "\n".join(early)
    assert not requests["wf-success-failed"], requests["wf-success-failed"]
