"""InstanceIsolation: two controller instances in one cluster leave each other alone.

We test these aspects, with the run's two controller instances (one per layout,
each with its own instanceID) and one copy of `manifests/instance-isolation.yaml`
submitted to each at the same time:

- both Workflows succeed, and every pod node of each has exactly one pod
  (no second pod created by the other instance);
- every recorded version of every pod of each Workflow carries its own
  instance's label, is in its own instance's layout (so the other instance,
  which builds the other layout, never built one) and never loses the label
  (WPC-INSTANCE-004).

The scenario needs both layouts' instances; a run with one layout skips it.
Matrix: legacy and init-less (the test's instance and the other one).
"""

from __future__ import annotations

import pytest

from conformance import contract
from conformance.harness.inspecting import recording
from conformance.harness.workload import pods
from conformance.harness.workload import workflows as workflow_ops

WORKFLOW_LABEL = "workflows.argoproj.io/workflow"
NODE_ID = "workflows.argoproj.io/node-id"


@pytest.mark.conformance(short_name="InstanceIsolation", clauses=["WPC-INSTANCE-004"])
def test_two_instances_never_touch_each_others_workflows_or_pods(
    workflows, scene, observations, layout, instances, test_labels
):
    others = [i for i in instances if i.instance_id != layout.instance_id]
    if not others:
        pytest.skip("needs a second controller instance: run both layouts")
    other = workflow_ops.Workflows(
        clients=scene.clients,
        namespace=scene.namespace,
        labels=test_labels,
        instance=others[0],
        timeouts=scene.timeouts,
    )
    instances = {layout.instance_id: layout, others[0].instance_id: others[0]}
    with recording.Recorder.pods(scene.clients, scene.namespace) as pod_versions:
        names = {
            layout.instance_id: workflows.submit(scene.manifest()),
            others[0].instance_id: other.submit(scene.manifest()),
        }
        finished = {i: workflows.wait_completed(n) for i, n in names.items()}
    observations.record_workflow(finished[layout.instance_id])

    problems = []
    for instance_id, workflow in finished.items():
        name, status = workflow["metadata"]["name"], workflow["status"]
        if status["phase"] != "Succeeded":
            problems.append(
                f"workflow {name} of {instance_id}: {status['phase']} {status.get('message')!r}"
            )
        versions = [
            e.obj
            for e in pod_versions.events()
            if (e.obj["metadata"].get("labels") or {}).get(WORKFLOW_LABEL) == name
        ]
        uids: dict[str, set[str]] = {}
        for pod in versions:
            meta = pod["metadata"]
            uids.setdefault(
                (meta.get("annotations") or {}).get(NODE_ID, meta["name"]), set()
            ).add(meta["uid"])
            shape = [
                (meta.get("labels") or {}).get(contract.INSTANCE_LABEL),
                pods.layout_of(pod),
            ]
            if shape != [instance_id, instances[instance_id].layout]:
                problems.append(
                    f"pod {meta['name']} of {instance_id}'s workflow (instance label, layout): {shape}"
                )
        pod_nodes = sorted(
            i for i, n in status["nodes"].items() if n.get("type") == "Pod"
        )
        if {k: len(v) for k, v in uids.items()} != dict.fromkeys(pod_nodes, 1):
            problems.append(
                f"workflow {name}: pods per node {uids}, pod nodes {pod_nodes}"
            )
    assert not problems, "WPC-INSTANCE-004:\n" + "\n".join(sorted(set(problems)))
