"""We test these aspects of workflow outputs (`globalName`, upstream `addOutputsToGlobalScope`, #16):

a step's output parameter with a `globalName` lands in `status.outputs.parameters` as
`{name, value}` once its pod node succeeds, and a later step reads it as
`{{workflow.outputs.parameters.<name>}}`; a later export of the same name overwrites the
value; a DAG task's export is visible to later tasks and the exit handler; an output
artifact is stored under its global name without `path` and can be passed on with
`from: "{{workflow.outputs.artifacts.<name>}}"`; an invalid `globalName` fails validation.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.checks import validation
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import workflow

STEPS = """
spec:
  entrypoint: main
  onExit: bye
  templates:
  - name: main
    steps:
    - - {name: gen, template: gen}
    - - name: use
        template: use
        arguments:
          parameters: [{name: x, value: "{{workflow.outputs.parameters.g}}"}]
  - name: gen
    container: {image: busybox, command: [sh, -c, "echo 42 > /tmp/o"]}
    outputs:
      parameters:
      - {name: out, globalName: g, valueFrom: {path: /tmp/o}}
  - name: use
    inputs: {parameters: [{name: x}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.x}}"]}
  - name: bye
    container: {image: busybox, command: [echo, "{{workflow.outputs.parameters.g}}"]}
"""


def _gen_outputs(value: str) -> dict:
    return {
        "parameters": [
            {
                "name": "out",
                "globalName": "g",
                "value": value,
                "valueFrom": {"path": "/tmp/o"},
            }
        ]
    }


def test_a_global_output_parameter_is_stored_and_read_by_a_later_step():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.succeed("wf[0].gen", outputs=_gen_outputs("42"))
    h.reconcile()
    assert h.wf["status"]["outputs"] == {"parameters": [{"name": "g", "value": "42"}]}
    assert h.node("wf[1].use")["inputs"]["parameters"][0]["value"] == "42"


def test_the_exit_handler_sees_the_workflow_outputs():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.succeed("wf[0].gen", outputs=_gen_outputs("42"))
    h.reconcile()
    h.succeed("wf[1].use")
    h.reconcile()
    pod = h.pod_of("wf.onExit")
    assert "42" in str(pod["spec"])


def test_a_later_export_of_the_same_name_overwrites_the_value():
    h = Harness(workflow(STEPS))
    h.wf["status"] = {"outputs": {"parameters": [{"name": "g", "value": "old"}]}}
    h.reconcile()
    h.succeed("wf[0].gen", outputs=_gen_outputs("new"))
    h.reconcile()
    assert h.wf["status"]["outputs"]["parameters"] == [{"name": "g", "value": "new"}]


def test_an_output_without_global_name_is_not_exported():
    h = Harness(workflow(STEPS.replace("globalName: g, ", "")))
    h.reconcile()
    h.succeed("wf[0].gen", outputs={"parameters": [{"name": "out", "value": "1"}]})
    h.reconcile()
    assert "outputs" not in h.wf["status"]


DAG = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: gen, template: gen}
      - name: use
        depends: gen
        template: use
        arguments:
          parameters: [{name: x, value: "{{workflow.outputs.parameters.g}}"}]
          artifacts: [{name: a, from: "{{workflow.outputs.artifacts.ga}}"}]
  - name: gen
    container: {image: busybox, command: [sh, -c, "echo 42 > /tmp/o"]}
    outputs:
      parameters:
      - {name: out, globalName: g, valueFrom: {path: /tmp/o}}
      artifacts:
      - {name: art, globalName: ga, path: /tmp/o}
  - name: use
    inputs:
      parameters: [{name: x}]
      artifacts: [{name: a, path: /tmp/a}]
    container: {image: busybox, command: [cat, /tmp/a]}
"""

ARTIFACT = {
    "name": "art",
    "globalName": "ga",
    "path": "/tmp/o",
    "s3": {"bucket": "b", "key": "wf/art.tgz"},
}


def test_a_dag_task_exports_parameters_and_artifacts_for_later_tasks():
    h = Harness(workflow(DAG))
    h.reconcile()
    outputs = {**_gen_outputs("42"), "artifacts": [ARTIFACT]}
    h.succeed("wf.gen", outputs=outputs)
    h.reconcile()
    assert h.wf["status"]["outputs"]["artifacts"] == [
        {"name": "ga", "s3": {"bucket": "b", "key": "wf/art.tgz"}}
    ]
    use = h.node("wf.use")
    assert use["inputs"]["parameters"][0]["value"] == "42"
    assert use["inputs"]["artifacts"][0]["s3"]["key"] == "wf/art.tgz"
    assert use["inputs"]["artifacts"][0]["path"] == "/tmp/a"


@pytest.mark.parametrize("kind", ["parameters", "artifacts"])
def test_an_invalid_global_name_fails_validation(kind):
    wf = workflow(DAG)
    gen = wf["spec"]["templates"][1]
    gen["outputs"][kind][0]["globalName"] = "not valid!"
    with pytest.raises(errors.ValidationError, match=rf"outputs\.{kind}\..*globalName"):
        validation.validate(wf)


def test_a_global_name_that_is_a_parameter_is_left_to_run_time():
    wf = workflow(DAG)
    wf["spec"]["templates"][1]["outputs"]["parameters"][0]["globalName"] = (
        "{{workflow.name}}"
    )
    validation.validate(wf)
