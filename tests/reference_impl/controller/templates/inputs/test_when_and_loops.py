"""We test these aspects of `when` and loops in running workflows (fake cluster, issue #13):

steps: a false condition gives a Skipped node with upstream's message, an undecidable one
errors the group, loop items are children of the step group named `step(i:item)` in item
order, a per-item condition, an empty loop, aggregated outputs for the next group, and a
non-JSON result failing the aggregation; DAGs: a TaskGroup parent with item children,
`AnySucceeded`, a condition on a task, an empty loop; and `parallelism` at workflow and
template level, and a template's `failFast`.
"""

from __future__ import annotations

from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import naming
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow

ECHO = """
  - name: echo
    inputs: {parameters: [{name: msg, value: ""}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.msg}}"]}
"""


def names(h: Harness, parent: str) -> list[str]:
    nodes = h.wf["status"]["nodes"]
    return [nodes[c]["name"] for c in h.node(parent).get("children", []) if c in nodes]


def test_a_false_when_skips_the_step_with_argos_message():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  arguments: {parameters: [{name: coin, value: heads}]}
  templates:
  - name: main
    steps:
    - - {name: heads, template: echo, when: "{{workflow.parameters.coin}} == heads"}
      - {name: tails, template: echo, when: "{{workflow.parameters.coin}} == tails"}
"""
            + ECHO
        )
    )
    h.reconcile()
    tails = h.node("wf[0].tails")
    assert (tails["type"], tails["phase"]) == ("Skipped", "Skipped")
    assert tails["message"] == "when 'heads == tails' evaluated false"
    assert tails["templateName"] == "echo"
    assert names(h, "wf[0]") == ["wf[0].heads", "wf[0].tails"]
    h.succeed("wf[0].heads")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"


def test_an_undecidable_when_errors_the_step_group():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: a, template: echo, when: "hello world == x"}
"""
            + ECHO
        )
    )
    h.reconcile()
    message = (
        "failed to resolve references: Invalid 'when' expression 'hello world == x': "
        "Cannot transition token types from VARIABLE [hello] to VARIABLE [world]"
    )
    assert h.node("wf[0]")["phase"] == "Error"
    assert h.node("wf[0]")["message"] == message
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == message


LOOP_STEPS = (
    """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: gen
        template: gen
        withItems: [b, a, {os: linux, n: 1}]
        arguments: {parameters: [{name: msg, value: "{{item}}"}]}
      - name: odd
        template: echo
        withSequence: {count: "3"}
        when: "{{item}} != 1"
      - name: none
        template: echo
        withParam: "[]"
    - - name: use
        template: echo
        arguments: {parameters: [{name: msg, value: "{{steps.gen.outputs.parameters.out}}"}]}
  - name: gen
    inputs: {parameters: [{name: msg}]}
    outputs: {parameters: [{name: out, valueFrom: {path: /tmp/out}}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.msg}}"]}
"""
    + ECHO
)


def test_loop_steps_are_group_children_named_by_item_in_order():
    h = Harness(workflow(LOOP_STEPS))
    h.reconcile()
    # the empty loop's node comes first: upstream adds it while expanding the group
    assert names(h, "wf[0]") == [
        "wf[0].none",
        "wf[0].gen(0:b)",
        "wf[0].gen(1:a)",
        "wf[0].gen(2:n:1,os:linux)",
        "wf[0].odd(0:0)",
        "wf[0].odd(1:1)",
        "wf[0].odd(2:2)",
    ]
    assert h.node("wf[0].gen(1:a)")["displayName"] == "gen(1:a)"
    assert h.node("wf[0].gen(2:n:1,os:linux)")["inputs"]["parameters"][0]["value"] == (
        '{"n":1,"os":"linux"}'
    )
    assert h.node("wf[0].odd(1:1)")["phase"] == "Skipped"
    assert h.node("wf[0].odd(1:1)")["message"] == "when '1 != 1' evaluated false"
    none = h.node("wf[0].none")
    assert (none["type"], none["phase"], none["message"]) == (
        "Skipped",
        "Skipped",
        "Skipped, empty params",
    )


def test_loop_outputs_are_aggregated_in_item_order_for_the_next_group():
    h = Harness(workflow(LOOP_STEPS))
    h.reconcile()
    for index, item in enumerate(["b", "a", "n:1,os:linux"]):
        h.succeed(
            f"wf[0].gen({index}:{item})",
            outputs={"parameters": [{"name": "out", "value": f"o{index}"}]},
        )
    h.succeed("wf[0].odd(0:0)")
    h.succeed("wf[0].odd(2:2)")
    h.reconcile()
    assert h.node("wf[0]")["phase"] == "Succeeded"
    use = h.node("wf[1].use")
    assert use["inputs"]["parameters"][0]["value"] == '["o0","o1","o2"]'
    assert names(h, "wf[0].odd(1:1)") == ["wf[1]"]


def test_a_result_that_is_not_json_fails_the_aggregation_like_argo():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: say, template: echo, withItems: [a]}
    - - name: use
        template: echo
        arguments: {parameters: [{name: msg, value: "{{steps.say.outputs.result}}"}]}
"""
            + ECHO
        )
    )
    h.reconcile()
    h.succeed("wf[0].say(0:a)", outputs={"result": "hello"})
    h.reconcile()
    message = "invalid character 'h' looking for beginning of value"
    assert h.node("wf")["phase"] == "Error"
    assert h.node("wf")["message"] == message
    assert h.wf["status"]["phase"] == "Error"


LOOP_DAG = (
    """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - name: fan
        template: echo
        withParam: '["x", "y"]'
        arguments: {parameters: [{name: msg, value: "{{item}}"}]}
      - {name: any, template: echo, depends: fan.AnySucceeded}
      - {name: skip, template: echo, depends: fan, when: "{{tasks.fan.status}} == Failed"}
      - {name: empty, template: echo, withItems: []}
      - {name: nothing, template: echo, withSequence: {count: "0"}}
"""
    + ECHO
)


def test_a_dag_loop_is_a_task_group_with_item_children():
    h = Harness(workflow(LOOP_DAG))
    h.reconcile()
    group = h.node("wf.fan")
    assert (group["type"], group["phase"], group["templateName"]) == (
        "TaskGroup",
        "Running",
        "echo",
    )
    assert names(h, "wf.fan") == ["wf.fan(0:x)", "wf.fan(1:y)"]
    # `withItems: []` is no loop at all (upstream's ShouldExpand): a plain task
    assert names(h, "wf") == ["wf.fan", "wf.empty", "wf.nothing"]
    assert h.node("wf.empty")["type"] == "Pod"
    nothing = h.node("wf.nothing")
    assert (nothing["phase"], nothing["message"]) == (
        "Skipped",
        "Skipped, empty params",
    )
    h.succeed("wf.fan(0:x)")
    h.fail("wf.fan(1:y)")
    h.reconcile()
    assert h.node("wf.fan")["phase"] == "Failed"
    assert h.node("wf.any")["phase"] == "Pending"
    assert names(h, "wf.fan(0:x)") == ["wf.any", "wf.skip"]
    skip = h.node("wf.skip")
    assert (skip["phase"], skip["message"]) == (
        "Omitted",
        "omitted: depends condition not met",
    )


def test_a_false_when_on_a_task_skips_it():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: a, template: echo}
      - {name: b, template: echo, depends: a, when: "{{tasks.a.status}} == Failed"}
"""
            + ECHO
        )
    )
    h.reconcile()
    h.succeed("wf.a")
    h.reconcile()
    b = h.node("wf.b")
    assert (b["type"], b["phase"]) == ("Skipped", "Skipped")
    assert b["message"] == "when 'Succeeded == Failed' evaluated false"
    assert h.wf["status"]["phase"] == "Succeeded"


PARALLEL = (
    """
spec:
  entrypoint: main
  WF_LIMIT
  templates:
  - name: main
    TMPL_LIMIT
    steps:
    - - {name: a, template: echo, withItems: [1, 2, 3]}
"""
    + ECHO
)


def parallel(wf_limit: str, tmpl_limit: str) -> str:
    return PARALLEL.replace("WF_LIMIT", wf_limit).replace("TMPL_LIMIT", tmpl_limit)


def created(h: Harness) -> list[str]:
    return [
        p["metadata"]["annotations"]["workflows.argoproj.io/node-name"]
        for p in h.effects.created
    ]


def test_workflow_parallelism_caps_active_pods():
    h = Harness(workflow(parallel("parallelism: 2", "")))
    h.reconcile()
    assert created(h) == ["wf[0].a(0:1)", "wf[0].a(1:2)"]
    assert names(h, "wf[0]") == ["wf[0].a(0:1)", "wf[0].a(1:2)"]
    h.reconcile()
    assert len(created(h)) == 2
    h.succeed("wf[0].a(0:1)")
    h.reconcile()
    assert created(h)[-1] == "wf[0].a(2:3)"


def test_template_parallelism_caps_active_children():
    h = Harness(workflow(parallel("", "parallelism: 1")))
    h.reconcile()
    assert created(h) == ["wf[0].a(0:1)"]
    h.succeed("wf[0].a(0:1)")
    h.reconcile()
    assert created(h) == ["wf[0].a(0:1)", "wf[0].a(1:2)"]
    assert h.wf["status"]["phase"] == "Running"


def test_fail_fast_stops_starting_children_and_fails_the_template():
    h = Harness(workflow(parallel("", "parallelism: 1\n    failFast: true")))
    h.reconcile()
    h.fail("wf[0].a(0:1)")
    h.reconcile()
    message = "template has failed or errored children and failFast enabled"
    assert created(h) == ["wf[0].a(0:1)"]
    assert h.node("wf")["phase"] == "Failed"
    h.reconcile()  # upstream completes the workflow on the pass after
    assert h.node("wf")["phase"] == "Failed"
    assert h.node("wf")["message"] == message
    assert h.node("wf[0]")["message"] == message
    assert h.wf["status"]["phase"] == "Failed"


def test_fail_fast_waits_for_the_running_children_before_failing_the_template():
    h = Harness(workflow(parallel("", "parallelism: 2\n    failFast: true")))
    h.reconcile()
    h.set_pod("wf[0].a(1:2)", pod_status("Running", main=running()))
    h.fail("wf[0].a(0:1)")
    h.reconcile()
    h.reconcile()
    assert h.node("wf")["phase"] == "Running", "a child still runs (upstream #13806)"
    assert h.node("wf[0].a(1:2)")["phase"] == "Running"
    assert h.wf["status"]["phase"] == "Running"
    h.succeed("wf[0].a(1:2)")
    h.reconcile()
    h.reconcile()
    assert h.node("wf[0].a(1:2)")["phase"] == "Succeeded"
    assert created(h) == ["wf[0].a(0:1)", "wf[0].a(1:2)"]
    assert (h.node("wf[0]")["phase"], h.node("wf")["phase"]) == ("Failed", "Failed")
    assert h.wf["status"]["phase"] == "Failed"


def test_the_fail_fast_at_once_fault_fails_the_template_with_a_child_running():
    h = Harness(
        workflow(parallel("", "parallelism: 2\n    failFast: true")),
        settings=settings(fault=Fault.FAIL_FAST_AT_ONCE),
    )
    h.reconcile()
    h.set_pod("wf[0].a(1:2)", pod_status("Running", main=running()))
    h.fail("wf[0].a(0:1)")
    h.reconcile()
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"
    assert h.node("wf[0].a(1:2)")["phase"] == "Running"


def test_dag_parallelism_leaves_a_blocked_item_as_upstream_does():
    h = Harness(
        workflow(
            """
spec:
  entrypoint: main
  templates:
  - name: main
    parallelism: 1
    dag:
      tasks:
      - {name: fan, template: echo, withItems: [a, b]}
"""
            + ECHO
        )
    )
    h.reconcile()
    assert created(h) == ["wf.fan(0:a)"]
    # upstream connects the item before parallelism refuses it: the child ID dangles
    assert h.node("wf.fan")["children"][-1] == naming.node_id("wf", "wf.fan(1:b)")
    h.succeed("wf.fan(0:a)")
    h.reconcile()
    h.succeed("wf.fan(1:b)")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
