"""InstanceIdSelection: a controller with an instanceID serves only its own Workflows.

We test these aspects, with the controller instance of the test's layout (it has
an instanceID, as every instance the suite installs does) and three copies of
`manifests/instance-id-selection.yaml`, submitted in this order: one labelled
for an instance ID nobody serves, one without the instance label, one labelled
for the test's instance:

- the instance's Workflow runs; every version of its pods and of its
  WorkflowTaskResults (recorded while they exist) carries
  `workflows.argoproj.io/controller-instanceid: <id>`, and the executor
  containers carry `ARGO_INSTANCE_ID=<id>` (WPC-INSTANCE-001);
- after the instance's Workflow completed, the other two still have no status
  and no pods, observed throughout the `unprocessed_window` timeout
  (WPC-INSTANCE-002).

A controller without instanceID would process the unlabelled copy, so the test
holds the `unlabelled_workflows_lock` (InstanceWithoutId runs such a controller).

Matrix: legacy and init-less (each layout's instance).
"""

from __future__ import annotations

import uuid

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness.inspecting import recording

EXECUTOR_CONTAINERS = ("init", "wait", "supervisor")
WORKFLOW_LABEL = "workflows.argoproj.io/workflow"


def instance_labels(events: list[recording.Event]) -> dict[str, set[str | None]]:
    """Object name -> every instance label value its recorded versions had."""
    seen: dict[str, set[str | None]] = {}
    for event in events:
        meta = event.obj["metadata"]
        seen.setdefault(meta["name"], set()).add(
            (meta.get("labels") or {}).get(contract.INSTANCE_LABEL)
        )
    return seen


@pytest.mark.conformance(
    short_name="InstanceIdSelection", clauses=["WPC-INSTANCE-001", "WPC-INSTANCE-002"]
)
def test_instance_labels_its_pods_and_results_and_ignores_other_workflows(
    unlabelled_workflows_lock, workflows, scene, observations, layout, test_labels
):
    body, instance_id = scene.manifest(), layout.instance_id
    nobody = f"wpc-nobody-{uuid.uuid4().hex[:8]}"
    unserved = {
        "labelled for nobody": workflows.create(
            body, labels={**test_labels, contract.INSTANCE_LABEL: nobody}
        ),
        "unlabelled": workflows.create(body, labels=dict(test_labels)),
    }
    with (
        recording.Recorder.pods(scene.clients, scene.namespace) as pods,
        recording.Recorder.task_results(scene.clients, scene.namespace) as results,
    ):
        name = workflows.submit(body)
        workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    assert workflow["status"]["phase"] == "Succeeded", (
        f"workflow {name}: {workflow['status'].get('message')!r}"
    )

    own = [
        e
        for e in pods.events()
        if (e.obj["metadata"].get("labels") or {}).get(WORKFLOW_LABEL) == name
    ]
    pod_labels = instance_labels(own)
    last = {e.obj["metadata"]["name"]: e.obj for e in own}
    instance_env = {
        f"{pod}/{c['name']}": next(
            (
                v.get("value")
                for v in c.get("env") or []
                if v["name"] == "ARGO_INSTANCE_ID"
            ),
            None,
        )
        for pod, obj in last.items()
        for c in [
            *(obj["spec"].get("initContainers") or []),
            *obj["spec"]["containers"],
        ]
        if c["name"] in EXECUTOR_CONTAINERS
    }
    result_labels = instance_labels(results.events())
    checks = [
        ("instance labels of every recorded pod version", pod_labels),
        (
            "ARGO_INSTANCE_ID of the executor containers",
            {k: {v} for k, v in instance_env.items()},
        ),
        ("instance labels of every recorded task result version", result_labels),
    ]
    problems = [
        f"WPC-INSTANCE-001: {what}: expected {instance_id!r} on each of at least one, got {got}"
        for what, got in checks
        if not got or any(values != {instance_id} for values in got.values())
    ]
    assert not problems, "\n".join(problems)

    def untouched() -> bool | NotYet:
        touched = {}
        for what, wf_name in unserved.items():
            if (state := workflows.touched(wf_name)) is not None:
                touched[what] = state
        return True if not touched else NotYet(touched)

    workflows.wait_unprocessed(
        untouched,
        describe=f"WPC-INSTANCE-002: workflows {unserved} to stay without status and pods",
    )
