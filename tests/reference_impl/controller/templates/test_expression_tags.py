"""We test these aspects of expression tags in workflows (`{{=...}}`, #16): a steps
template's step arguments computed from its inputs and an earlier step's result, a DAG
task's arguments from an earlier task's output parameter, a `when` given by an expression,
a loop item inside an expression, an expression in a container's args evaluated when the
pod is built, and the failures: an expression that cannot be evaluated errors the step or
the node with a message naming it, and a function outside the supported subset is refused
by name (the pod is never created with the literal tag).
"""

from __future__ import annotations

from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import workflow

ECHO = """
  - name: echo
    inputs: {parameters: [{name: msg}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.msg}}"]}
  - name: gen
    container: {image: busybox, command: [echo, "5"]}
"""


def _msg_of(h: Harness, node_name: str) -> str:
    params = h.node(node_name)["inputs"]["parameters"]
    return str(next(p["value"] for p in params if p["name"] == "msg"))


def test_step_arguments_compute_from_inputs_and_an_earlier_steps_result():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  arguments: {parameters: [{name: n, value: "3"}, {name: who, value: bob}]}
  templates:
  - name: main
    inputs: {parameters: [{name: n}, {name: who}]}
    steps:
    - - name: double
        template: echo
        arguments:
          parameters: [{name: msg, value: "{{=asInt(inputs.parameters.n) * 2}}"}]
      - name: shout
        template: echo
        arguments:
          parameters: [{name: msg, value: "hi {{=sprig.upper(inputs.parameters.who)}}"}]
      - {name: gen, template: gen}
    - - name: next
        template: echo
        arguments:
          parameters:
          - name: msg
            value: "{{=asInt(steps.gen.outputs.result) + asInt(inputs.parameters.n)}}"
"""
            + ECHO
        )
    )
    h.wf["spec"]["templates"][0]["inputs"]["parameters"] = [
        {"name": "n", "value": "{{workflow.parameters.n}}"},
        {"name": "who", "value": "{{workflow.parameters.who}}"},
    ]
    h.reconcile()
    assert _msg_of(h, "wf[0].double") == "6"
    assert _msg_of(h, "wf[0].shout") == "hi BOB"
    assert "6" in h.pod_of("wf[0].double")["spec"]["containers"][1]["command"]
    h.succeed("wf[0].double")
    h.succeed("wf[0].shout")
    h.succeed("wf[0].gen", outputs={"result": "5"})
    h.reconcile()
    assert _msg_of(h, "wf[1].next") == "8"


def test_dag_task_arguments_and_when_use_earlier_task_outputs():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: gen, template: gen}
      - name: big
        depends: gen
        template: echo
        when: "{{=asInt(tasks.gen.outputs.result) > 4}}"
        arguments:
          parameters: [{name: msg, value: "{{=sprig.repeat(2, tasks.gen.outputs.result)}}"}]
      - name: small
        depends: gen
        template: echo
        when: "{{=asInt(tasks.gen.outputs.result) <= 4}}"
        arguments: {parameters: [{name: msg, value: x}]}
"""
            + ECHO
        )
    )
    h.reconcile()
    h.succeed("wf.gen", outputs={"result": "5"})
    h.reconcile()
    assert _msg_of(h, "wf.big") == "55"
    small = h.node("wf.small")
    assert (small["phase"], small["message"]) == (
        "Skipped",
        "when 'false' evaluated false",
    )


def test_a_loop_item_is_evaluated_per_item():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: tens
        template: echo
        withItems: ["1", "2"]
        arguments: {parameters: [{name: msg, value: "{{=asInt(item) * 10}}"}]}
"""
            + ECHO
        )
    )
    h.reconcile()
    assert _msg_of(h, "wf[0].tens(0:1)") == "10"
    assert _msg_of(h, "wf[0].tens(1:2)") == "20"


def test_an_expression_in_container_args_is_evaluated_in_the_pod():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  arguments: {parameters: [{name: word, value: abc}]}
  templates:
  - name: main
    inputs: {parameters: [{name: word, value: "{{workflow.parameters.word}}"}]}
    container:
      image: busybox
      command: [sh, -c]
      args: ["echo {{=sprig.upper(inputs.parameters.word)}} {{=len(inputs.parameters.word) + 1}}"]
"""
        )
    )
    h.reconcile()
    main = h.pod_of("wf")["spec"]["containers"][1]
    assert main["args"] == ["echo ABC 4"]


def test_an_expression_that_fails_errors_the_step_with_its_text():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: gen, template: gen}
    - - name: use
        template: echo
        arguments:
          parameters: [{name: msg, value: "{{=asInt(steps.gen.outputs.result) * 2}}"}]
"""
            + ECHO
        )
    )
    h.reconcile()
    h.succeed("wf[0].gen", outputs={"result": "five"})
    h.reconcile()
    message = h.node("wf[1]")["message"]
    assert "asInt(steps.gen.outputs.result) * 2" in message
    assert 'strconv.Atoi: parsing "five": invalid syntax' in message
    assert h.wf["status"]["phase"] in ("Failed", "Error")


def test_an_unsupported_function_fails_the_node_and_creates_no_pod():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    container:
      image: busybox
      command: [echo, "{{=sprig.nospace('a b')}}"]
"""
        )
    )
    h.reconcile()
    node = h.node("wf")
    assert node["phase"] == "Error"
    assert "sprig.nospace" in node["message"]
    assert "not supported by the reference controller" in node["message"]
    assert h.effects.created == []


def test_a_pod_that_would_keep_an_unevaluated_tag_is_not_created():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    container:
      image: busybox
      command: [echo, "{{=inputs.parameters.nothing + 'x'}}"]
"""
        )
    )
    h.reconcile()
    node = h.node("wf")
    assert node["phase"] == "Error"
    assert "{{=inputs.parameters.nothing + 'x'}}" in node["message"]
    assert h.effects.created == []
