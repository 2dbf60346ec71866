"""PodGcAnnotation: pods announce the workflow's pod GC strategy and delay.

We test these aspects, on two copies of `manifests/pod-gc-annotation.yaml`
run side by side, one with `podGC: {strategy: OnPodSuccess,
deleteDelayDuration: 90s}` and one with `{strategy: OnPodCompletion,
deleteDelayDuration: 0s}`:

- every pod carries `workflows.argoproj.io/pod-gc-strategy: <strategy>/<delay>`
  with the delay as a Go duration (`OnPodSuccess/1m30s`,
  `OnPodCompletion/0s`), read from the pods' recorded versions because pod GC
  may delete them before the workflow completes (WPC-POD-010).

Matrix: legacy and init-less.
"""

from __future__ import annotations

import copy

import pytest

from conformance.harness.inspecting import recording

ANNOTATION = "workflows.argoproj.io/pod-gc-strategy"
CASES = {
    "OnPodSuccess/1m30s": {"strategy": "OnPodSuccess", "deleteDelayDuration": "90s"},
    "OnPodCompletion/0s": {"strategy": "OnPodCompletion", "deleteDelayDuration": "0s"},
}


@pytest.mark.conformance(short_name="PodGcAnnotation", clauses=["WPC-POD-010"])
def test_pods_carry_the_pod_gc_strategy_and_effective_delay(
    workflows, manifest, kube_clients, namespace
):
    names = {}
    with recording.Recorder.pods(kube_clients, namespace) as pods:
        for expected, pod_gc in CASES.items():
            body = copy.deepcopy(manifest())
            body["spec"]["podGC"] = pod_gc
            names[workflows.submit(body)] = expected
        finished = [workflows.wait_completed(name) for name in names]
    for workflow in finished:
        assert workflow["status"]["phase"] == "Succeeded", (
            f"workflow {workflow['metadata']['name']}: {workflow['status'].get('message')!r}"
        )

    seen: dict[str, set[str | None]] = {}
    wanted: dict[str, set[str | None]] = {}
    for event in pods.events():
        meta = event.obj["metadata"]
        workflow = (meta.get("labels") or {}).get("workflows.argoproj.io/workflow")
        if workflow in names:
            seen.setdefault(meta["name"], set()).add(
                (meta.get("annotations") or {}).get(ANNOTATION)
            )
            wanted[meta["name"]] = {names[workflow]}
    assert len(seen) == len(names), f"pods recorded: {sorted(seen)}"
    assert seen == wanted, (
        f"WPC-POD-010: {ANNOTATION} of every recorded pod version: {seen}, expected {wanted}"
    )
