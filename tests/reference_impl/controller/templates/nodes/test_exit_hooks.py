"""We test these aspects of exit hooks (upstream `runOnExitNode`, `GetExitHook`, #16):

a completed step's `hooks.exit` runs as `<step>.onExit`, a hooked child of the step in the
same boundary, with arguments naming the step's status and outputs, and the step group
waits for it; a failed step gets its hook too and the workflow fails after it; a skipped
step gets none; the older `onExit` spelling works the same; a DAG task's dependents and
the DAG wait for its hook; a hook on a retried step does not count as an attempt; the
workflow's `spec.hooks.exit` is its exit handler `<wf>.onExit`, which is no step's hook
(what the `rerun-hook-on-restart` fault tells apart); hooks other than `exit` and
hooks with expressions are rejected at validation.
"""

from __future__ import annotations

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.checks import validation
from reference_impl.controller.templates.nodes import hooks
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import workflow

STEPS = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: a
        template: gen
        hooks:
          exit:
            template: bye
            arguments:
              parameters:
              - {name: status, value: "{{steps.a.status}}"}
              - {name: out, value: "{{steps.a.outputs.parameters.out}}"}
    - - {name: b, template: echo}
  - name: gen
    container: {image: busybox, command: [sh, -c, "echo 1 > /tmp/o"]}
    outputs:
      parameters: [{name: out, valueFrom: {path: /tmp/o}}]
  - name: bye
    inputs: {parameters: [{name: status}, {name: out}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.status}}"]}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""

OUT = {"parameters": [{"name": "out", "value": "7"}]}


def test_a_steps_exit_hook_runs_after_it_and_the_group_waits():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.succeed("wf[0].a", outputs=OUT)
    h.reconcile()
    hook = h.node("wf[0].a.onExit")
    assert hook["type"] == "Pod"
    assert hook["nodeFlag"] == {"hooked": True}
    assert hook["boundaryID"] == "wf"
    assert hook["id"] in h.node("wf[0].a")["children"]
    assert {p["name"]: p["value"] for p in hook["inputs"]["parameters"]} == {
        "status": "Succeeded",
        "out": "7",
    }
    assert h.node("wf[0]")["phase"] == "Running"
    assert h.wf["status"]["nodes"].get(h.last.node_id("wf[1].b")) is None  # type: ignore[union-attr]
    h.succeed("wf[0].a.onExit")
    h.reconcile()
    assert h.node("wf[0]")["phase"] == "Succeeded"
    assert h.node("wf[1].b")["phase"] == "Pending"


def test_the_hooks_pod_is_labelled_as_an_exit_handler_pod():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.succeed("wf[0].a", outputs=OUT)
    h.reconcile()
    labels = h.pod_of("wf[0].a.onExit")["metadata"]["labels"]
    assert labels.get("workflows.argoproj.io/on-exit") == "true"


def test_a_failed_step_gets_its_hook_and_the_workflow_fails_after_it():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.fail("wf[0].a")
    h.reconcile()
    hook = h.node("wf[0].a.onExit")
    assert hook["inputs"]["parameters"][0]["value"] == "Failed"
    assert h.wf["status"]["phase"] == "Running"
    h.succeed("wf[0].a.onExit")
    h.reconcile()
    assert h.node("wf[0]")["phase"] == "Failed"
    assert h.wf["status"]["phase"] == "Failed"


def test_a_skipped_step_gets_no_hook():
    wf = workflow(STEPS)
    wf["spec"]["templates"][0]["steps"][0][0]["when"] = "1 == 2"
    h = Harness(wf)
    h.reconcile()
    assert h.node("wf[0].a")["phase"] == "Skipped"
    assert h.node("wf[1].b")["phase"] == "Pending"
    assert h.last is not None
    assert h.last.node("wf[0].a.onExit") is None


def test_the_older_on_exit_spelling_runs_the_same_way():
    wf = workflow(STEPS)
    step = wf["spec"]["templates"][0]["steps"][0][0]
    del step["hooks"]
    step["onExit"] = "echo"
    h = Harness(wf)
    h.reconcile()
    h.succeed("wf[0].a", outputs=OUT)
    h.reconcile()
    assert h.node("wf[0].a.onExit")["templateName"] == "echo"


DAG = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: echo, hooks: {exit: {template: echo}}}
      - {name: b, template: echo, depends: a}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""


def test_a_tasks_dependents_and_the_dag_wait_for_its_hook():
    h = Harness(workflow(DAG))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    hook = h.node("wf.a.onExit")
    assert hook["phase"] == "Pending"
    assert hook["id"] in h.node("wf.a")["children"]
    assert h.last is not None
    assert h.last.node("wf.b") is None
    h.succeed("wf.a.onExit")
    h.reconcile()
    h.succeed("wf.b")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"


def test_a_failed_hook_does_not_fail_the_dag():
    h = Harness(workflow(DAG))
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    h.fail("wf.a.onExit")
    h.reconcile()
    h.succeed("wf.b")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"


def test_a_hook_on_a_retried_task_is_no_attempt():
    wf = workflow(DAG)
    wf["spec"]["templates"][1]["retryStrategy"] = {"limit": 2}
    h = Harness(wf)
    h.reconcile()
    h.succeed("wf.a(0)", outputs=OUT)
    h.reconcile()
    h.succeed("wf.a.onExit(0)")
    h.reconcile()
    retry = h.node("wf.a")
    assert retry["phase"] == "Succeeded"
    assert retry["outputs"]["parameters"] == OUT["parameters"]
    assert retry["children"][-1] == h.node("wf.a.onExit")["id"]
    assert h.node("wf.a.onExit")["phase"] == "Succeeded"
    assert h.node("wf.b(0)")["phase"] == "Pending"


def test_the_workflows_exit_hook_is_its_exit_handler():
    wf = workflow(DAG)
    wf["spec"]["hooks"] = {"exit": {"template": "echo"}}
    h = Harness(wf)
    h.reconcile()
    for name in ("wf.a", "wf.a.onExit", "wf.b"):
        h.succeed(name)
        h.reconcile()
    node = h.node("wf.onExit")
    assert node["nodeFlag"] == {"hooked": True}
    assert h.wf["status"]["phase"] == "Running"
    assert [
        name
        for name in ("wf.a", "wf.a.onExit", "wf.b", "wf.onExit")
        if hooks.is_step_hook_pod(h.node(name), "wf")
    ] == ["wf.a.onExit"]
    h.succeed("wf.onExit")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            {"running": {"template": "echo"}},
            "templates.main.steps[0].a.running Expression required",
        ),
        (
            {"running": {"template": "echo", "expression": "true"}},
            "templates.main.steps[0].a.hooks.running.expression is not supported by the reference controller",
        ),
        (
            {"exit": {"template": "missing"}},
            "template name 'missing' undefined",
        ),
    ],
)
def test_hooks_other_than_exit_are_rejected(hooks, message):
    wf = workflow(STEPS)
    wf["spec"]["templates"][0]["steps"][0][0]["hooks"] = hooks
    with pytest.raises(errors.ValidationError) as caught:
        validation.validate(wf)
    assert str(caught.value) == message


def test_an_exit_hook_on_a_looping_task_is_rejected():
    wf = workflow(DAG)
    wf["spec"]["templates"][0]["dag"]["tasks"][0]["withItems"] = [1, 2]
    with pytest.raises(errors.ValidationError, match="looping task is not supported"):
        validation.validate(wf)


def test_a_workflow_hook_other_than_exit_needs_an_expression():
    wf = workflow(DAG)
    wf["spec"]["hooks"] = {"running": {"template": "echo"}}
    with pytest.raises(
        errors.ValidationError, match=r"^hooks.running Expression required$"
    ):
        validation.validate(wf)
