"""ResultOutputArtifacts: an output artifact goes through the S3 repository into the next task.

We test these aspects, with a two-task DAG run against the implementation's
S3 artifact repository (its credentials Secret copied into the test's
namespace, as users are told to do): `produce` writes a file whose content is
unique to this run and a parameter; `consume` takes the file as an input
artifact (`from: tasks.produce.outputs.artifacts.data`) and the parameter as
an argument, and reports both back as output parameters read from files.

- the workflow and both nodes succeed;
- `produce`'s node lists the artifact `data` in `outputs.artifacts` with an
  `s3.key` (WPC-RESULT-008);
- `consume` received exactly the bytes `produce` left at the path, and the
  parameter unchanged (WPC-RESULT-008; issue: a DAG passing parameters and
  artifacts).
Node phases and outputs are recorded for the cross-layout comparison.
Matrix: legacy and initless.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from conformance.harness.workload.workflows import named_node


def _parameters(node: dict[str, Any]) -> dict[str, str]:
    return {
        p["name"]: p.get("value") for p in node.get("outputs", {}).get("parameters", [])
    }


@pytest.mark.conformance(short_name="ResultOutputArtifacts", clauses=["WPC-RESULT-008"])
def test_an_output_artifact_reaches_the_next_task_through_the_repository(
    workflows, manifest, artifact_repository, observations
):
    marker = uuid.uuid4().hex
    # printf turns the \n into a newline: the content has two lines and no
    # trailing newline, so any trimming or re-encoding shows.
    name = workflows.submit(manifest(content=f"run {marker}\\nline two"))

    workflow = workflows.wait_completed(name)
    observations.alias(marker, "<marker>")  # the same content in every layout
    observations.record_workflow(workflow)

    status = workflow["status"]
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"
    produce, consume = named_node(workflow, "produce"), named_node(workflow, "consume")
    artifacts = produce.get("outputs", {}).get("artifacts", [])
    data = [a for a in artifacts if a.get("name") == "data"]
    assert len(data) == 1, f"WPC-RESULT-008: produce outputs.artifacts: {artifacts}"
    assert data[0].get("s3", {}).get("key"), (
        f"WPC-RESULT-008: artifact data has no s3.key: {data[0]}"
    )
    assert _parameters(consume) == {
        "received": f"run {marker}\nline two",
        "greeting": "hello",
    }, f"WPC-RESULT-008: consume outputs: {consume.get('outputs')}"
