"""ResultCleanup: the controller deletes a completed workflow's task results (a SHOULD).

We test this aspect: a one-pod workflow's WorkflowTaskResult, recorded while
the workflow runs, is gone within the cleanup timeout after the workflow
completed (WPC-RESULT-007). Task results the controller misses would still
be collected with the Workflow through their ownerReference, which
ResultTaskResults checks (WPC-RESULT-002). Matrix: legacy and initless.
"""

from __future__ import annotations

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.inspecting import recording

WORKFLOW = "workflows.argoproj.io/workflow"


@pytest.mark.conformance(short_name="ResultCleanup", clauses=["WPC-RESULT-007"])
def test_task_results_of_a_completed_workflow_are_deleted(
    workflows, manifest, kube_clients, namespace, timeouts
):
    with recording.Recorder.task_results(kube_clients, namespace) as results:
        name = workflows.submit(manifest())
        workflows.wait_completed(name)
    seen = {
        e.obj["metadata"]["name"]
        for e in results.events()
        if (e.obj["metadata"].get("labels") or {}).get(WORKFLOW) == name
    }
    assert seen, "no task result of the workflow was ever recorded"

    def gone() -> bool | NotYet:
        left = kube_clients.custom.list_namespaced_custom_object(
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            namespace,
            "workflowtaskresults",
            label_selector=f"{WORKFLOW}={name}",
        )["items"]
        return not left or NotYet([i["metadata"]["name"] for i in left])

    until(
        gone,
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        describe=f"the task results {sorted(seen)} of completed workflow {name} to go",
    )
