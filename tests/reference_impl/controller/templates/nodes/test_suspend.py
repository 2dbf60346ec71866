"""We test these aspects of suspend templates (upstream `executeSuspend`, `ResumeWorkflow`, #16):

a suspend node is a `Suspend` node, Running without message until resumed; with `duration`
it succeeds once its startedAt + duration has passed and the workflow is requeued for that
moment; without, it stays Running until the user sets its phase to Succeeded (as
`argo resume` does), after which the next step runs; an active suspend node fails with
the workflow deadline and on shutdown; a bad duration errors the node; outputs and
`timeout` on a suspend template are rejected at validation. The chaos negative control
`restart-suspend-timer` times a node started before the controller process from the
process's start instead; without the switch, or for a node the process started itself,
the duration counts from startedAt.
"""

from __future__ import annotations

import datetime

import pytest

from reference_impl.controller import errors
from reference_impl.controller.faults import Fault
from reference_impl.controller.templates.checks import validation
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow

TEXT = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: wait, template: pause}
    - - {name: after, template: echo}
  - name: pause
    suspend: {}
  - name: echo
    container: {image: busybox, command: [echo, hi]}
"""


def _with_duration(duration: str) -> str:
    return TEXT.replace("suspend: {}", f'suspend: {{duration: "{duration}"}}')


def test_a_suspend_node_is_running_until_resumed():
    h = Harness(workflow(TEXT))
    h.reconcile()
    h.now = NOW + datetime.timedelta(hours=5)
    h.reconcile()
    node = h.node("wf[0].wait")
    assert node["type"] == "Suspend"
    assert node["phase"] == "Running"
    assert "message" not in node
    assert "taskResultSynced" not in node
    assert h.wf["status"]["phase"] == "Running"
    assert h.effects.created == []


def test_resuming_as_argo_resume_does_runs_the_next_step():
    h = Harness(workflow(TEXT))
    h.reconcile()
    node = h.node("wf[0].wait")
    node["phase"], node["finishedAt"] = "Succeeded", "2026-01-02T03:10:00Z"
    h.reconcile()
    assert h.node("wf[0]")["phase"] == "Succeeded"
    assert h.node("wf[1].after")["phase"] == "Pending"
    h.succeed("wf[1].after")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"


def test_a_duration_resumes_the_node_once_it_has_passed():
    h = Harness(workflow(_with_duration("5s")))
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Running"
    assert h.last is not None
    assert h.last.requeue_after == 5
    h.now = NOW + datetime.timedelta(seconds=5)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Running"
    h.now = NOW + datetime.timedelta(seconds=6)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"
    assert h.node("wf[1].after")["phase"] == "Pending"


def test_a_bare_number_is_seconds():
    h = Harness(workflow(_with_duration("10")))
    h.reconcile()
    h.now = NOW + datetime.timedelta(seconds=11)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"


def test_the_workflow_deadline_wakes_the_workflow_when_it_comes_first():
    wf = workflow(_with_duration("1h"))
    wf["spec"]["activeDeadlineSeconds"] = 4
    h = Harness(wf)
    h.reconcile()
    h.now = NOW + datetime.timedelta(seconds=1)
    h.reconcile()
    assert h.last is not None
    assert h.last.requeue_after == 3  # the deadline itself, not a second after it


def _seconds(n: int) -> datetime.datetime:
    return NOW + datetime.timedelta(seconds=n)


def _restarted_at(
    restart: int, fault: Fault | None, *, process_started: int | None = None
) -> Harness:
    """A 20 s suspend started at NOW; the controller process restarted `restart` s later."""
    h = Harness(workflow(_with_duration("20")), settings=settings(fault=fault))
    h.reconcile()
    h.process_started = _seconds(
        restart if process_started is None else process_started
    )
    return h


@pytest.mark.parametrize("fault", [None, Fault.DOUBLE_POD_ON_RESTART])
def test_a_duration_that_ended_before_the_restart_resumes_at_once(fault):
    h = _restarted_at(25, fault)
    h.now = _seconds(26)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"


def test_restart_suspend_timer_times_an_older_node_from_the_process_start():
    h = _restarted_at(25, Fault.RESTART_SUSPEND_TIMER)
    h.now = _seconds(26)
    h.reconcile()
    node = h.node("wf[0].wait")
    assert (node["phase"], node["startedAt"]) == ("Running", "2026-01-02T03:04:05Z")
    h.now = _seconds(45)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Running"
    h.now = _seconds(46)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"


@pytest.mark.parametrize("process_started", [0, -5])
def test_restart_suspend_timer_leaves_a_node_this_process_started_alone(
    process_started,
):
    h = _restarted_at(0, Fault.RESTART_SUSPEND_TIMER, process_started=process_started)
    h.now = _seconds(20)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Running"
    h.now = _seconds(21)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"


def test_restart_suspend_timer_without_a_known_process_start_changes_nothing():
    h = Harness(
        workflow(_with_duration("20")),
        settings=settings(fault=Fault.RESTART_SUSPEND_TIMER),
    )
    h.reconcile()
    h.now = _seconds(21)
    h.reconcile()
    assert h.node("wf[0].wait")["phase"] == "Succeeded"


def test_an_unparsable_duration_errors_the_node():
    h = Harness(workflow(_with_duration("soon")))
    h.reconcile()
    node = h.node("wf[0].wait")
    assert node["phase"] == "Error"
    assert node["message"] == (
        'unable to parse soon as a duration: time: invalid duration "soon"'
    )


def test_the_workflow_deadline_fails_a_suspended_node():
    wf = workflow(TEXT)
    wf["spec"]["activeDeadlineSeconds"] = 10
    h = Harness(wf)
    h.reconcile()
    h.now = NOW + datetime.timedelta(seconds=11)
    h.reconcile()
    node = h.node("wf[0].wait")
    assert node["phase"] == "Failed"
    assert node["message"] == "Step exceeded its deadline"
    assert h.wf["status"]["phase"] == "Failed"


@pytest.mark.parametrize("strategy", ["Stop", "Terminate"])
def test_a_shutdown_fails_a_suspended_node(strategy):
    h = Harness(workflow(TEXT))
    h.reconcile()
    h.wf["spec"]["shutdown"] = strategy
    h.reconcile()
    node = h.node("wf[0].wait")
    assert node["phase"] == "Failed"
    assert node["message"] == f"Stopped with strategy '{strategy}'"
    assert h.wf["status"]["phase"] == "Failed"


def test_a_suspended_exit_handler_survives_stop():
    wf = workflow(TEXT)
    wf["spec"]["onExit"] = "pause"
    wf["spec"]["templates"][0]["steps"] = [[{"name": "after", "template": "echo"}]]
    h = Harness(wf)
    h.reconcile()
    h.succeed("wf[0].after")
    h.reconcile()
    assert h.node("wf.onExit")["phase"] == "Running"
    h.wf["spec"]["shutdown"] = "Stop"
    h.reconcile()
    assert h.node("wf.onExit")["phase"] == "Running"


def test_outputs_of_a_suspend_template_are_rejected():
    wf = workflow(TEXT)
    wf["spec"]["templates"][1]["outputs"] = {
        "parameters": [{"name": "p", "valueFrom": {"default": "x"}}]
    }
    with pytest.raises(errors.ValidationError, match="not supported by the reference"):
        validation.validate(wf)


def test_a_timeout_on_a_suspend_template_is_rejected_as_upstream_does():
    wf = workflow(TEXT)
    wf["spec"]["templates"][1]["timeout"] = "10s"
    with pytest.raises(
        errors.ValidationError, match="Suspend template doesn't support timeout field"
    ):
        validation.validate(wf)
