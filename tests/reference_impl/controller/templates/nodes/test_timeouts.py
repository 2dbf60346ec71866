"""We test these aspects of a template's `timeout` and `pendingTimeout` (issue #16):

the pod's activeDeadlineSeconds (whole seconds left, replacing any other value as upstream
does), the kubelet's deadline message failing the node and the workflow, a node Pending
past its deadline failing with `timeout` (pod deleted; in steps and in DAGs), a build with
a second or less left, the requeue at the deadline, Go duration parsing, and validation.
"""

from __future__ import annotations

import datetime

import pytest

from reference_impl.controller import errors
from reference_impl.controller.templates.checks import validation
from reference_impl.controller.templates.nodes import timeouts
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import FakeEffects
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import workflow

DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline"

LEAF = """
spec:
  entrypoint: main
  templates:
  - name: main
    timeout: "4s"
    {extra}
    container: {{image: busybox, command: [sleep, "60"]}}
"""

STEPS = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: slow, template: slow}
  - name: slow
    timeout: 1m
    container: {image: busybox, command: [sleep, "600"]}
"""

DAG = """
spec:
  entrypoint: main
  templates:
  - name: main
    dag:
      tasks:
      - {name: slow, template: slow}
  - name: slow
    pendingTimeout: 5s
    container: {image: busybox, command: [sleep, "600"]}
"""


def test_timeout_becomes_the_pods_active_deadline_seconds():
    h = Harness(workflow(LEAF.format(extra="")))
    h.reconcile()
    assert h.effects.created[0]["spec"]["activeDeadlineSeconds"] == 4


def test_timeout_counts_whole_seconds_left_since_the_node_started():
    h = Harness(workflow(LEAF.format(extra="")))
    h.now = NOW + datetime.timedelta(microseconds=250_000)
    h.reconcile()
    assert h.effects.created[0]["spec"]["activeDeadlineSeconds"] == 3


@pytest.mark.parametrize("seconds", [2, 100])
def test_timeout_replaces_a_templates_active_deadline_seconds(seconds):
    text = LEAF.format(extra=f"activeDeadlineSeconds: {seconds}")
    h = Harness(workflow(text))
    h.reconcile()
    assert h.effects.created[0]["spec"]["activeDeadlineSeconds"] == 4


def test_the_kubelets_deadline_fails_the_node_and_workflow_with_its_message():
    h = Harness(workflow(LEAF.format(extra="")))
    h.reconcile()
    h.set_pod(
        "wf",
        pod_status("Failed", message=DEADLINE_MESSAGE, reason="DeadlineExceeded"),
    )
    h.report("wf")
    h.reconcile()
    assert h.node("wf")["phase"] == "Failed"
    assert h.node("wf")["message"] == DEADLINE_MESSAGE
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == DEADLINE_MESSAGE


def test_a_step_pending_past_its_timeout_fails_with_timeout_and_its_pod_is_deleted():
    h = Harness(workflow(STEPS))
    h.reconcile()
    pod = h.pod_of("wf[0].slow")
    h.set_pod("wf[0].slow", pod_status("Pending"))
    h.now = NOW + datetime.timedelta(seconds=61)
    h.reconcile()
    assert h.node("wf[0].slow")["phase"] == "Failed"
    assert h.node("wf[0].slow")["message"] == "timeout"
    assert h.effects.deleted == [pod["metadata"]["name"]]
    assert h.node("wf[0]")["message"] == "timeout"
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == "timeout"


def test_a_running_step_past_its_timeout_is_left_to_the_kubelet():
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.set_pod("wf[0].slow", pod_status("Running", main=running(), wait=running()))
    h.now = NOW + datetime.timedelta(seconds=61)
    h.reconcile()
    assert h.node("wf[0].slow")["phase"] == "Running"
    assert h.effects.deleted == []


def test_a_task_pending_past_its_pending_timeout_fails_with_timeout():
    h = Harness(workflow(DAG))
    h.reconcile()
    h.set_pod("wf.slow", pod_status("Pending"))
    h.now = NOW + datetime.timedelta(seconds=1)
    h.reconcile()
    assert h.last is not None
    assert h.last.requeue_after == pytest.approx(4.0)
    h.now = NOW + datetime.timedelta(seconds=6)
    h.reconcile()
    assert h.node("wf.slow")["phase"] == "Failed"
    assert h.node("wf.slow")["message"] == "timeout"
    assert h.wf["status"]["phase"] == "Failed"


class _FullQuota(FakeEffects):
    def __init__(self) -> None:
        super().__init__()
        self.full = True

    def create_pod(self, pod):
        if self.full:
            raise errors.ApiError(
                verb="POST", target="pods", status=403, reason="exceeded quota: q"
            )
        super().create_pod(pod)


def test_a_pod_built_with_a_second_or_less_left_errors_the_node():
    h = Harness(workflow(LEAF.format(extra="")))
    h.effects = _FullQuota()
    h.reconcile()
    assert h.node("wf")["phase"] == "Pending"
    h.effects.full = False
    h.now = NOW + datetime.timedelta(seconds=3)
    h.reconcile()
    assert h.node("wf")["phase"] == "Error"
    assert h.node("wf")["message"] == "wf exceeded its deadline"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5", 5), ("-2", -2), ("1m30s", 90), ("1.5h", 5400), ("300ms", 0.3), ("0", 0)],
)
def test_durations_parse_like_argo(text, seconds):
    assert timeouts.parse_duration(text).total_seconds() == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("4x", 'time: unknown unit "x" in duration "4x"'),
        ("1.5", 'time: missing unit in duration "1.5"'),
        ("soon", 'time: invalid duration "soon"'),
        ("", 'time: invalid duration ""'),
    ],
)
def test_bad_durations_give_argos_message(text, cause):
    with pytest.raises(errors.WorkflowError) as caught:
        timeouts.parse_duration(text)
    assert str(caught.value) == (
        f"invalid timeout format unable to parse {text} as a duration: {cause}"
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "{name: main, timeout: 1m, steps: [[{name: a, template: c}]]}",
            "Steps template doesn't support timeout field",
        ),
        (
            "{name: main, pendingTimeout: 1m, dag: {tasks: [{name: a, template: c}]}}",
            "DAG template doesn't support pendingTimeout field",
        ),
        (
            "{name: main, timeout: '30', container: {image: busybox}}",
            "main has invalid duration format in timeout",
        ),
    ],
)
def test_validation_rejects_timeouts_where_argo_does(template, message):
    wf = workflow(
        f"""
spec:
  entrypoint: main
  templates:
  - {template}
  - {{name: c, container: {{image: busybox}}}}
"""
    )
    with pytest.raises(errors.ValidationError) as caught:
        validation.validate(wf)
    assert str(caught.value) == message
