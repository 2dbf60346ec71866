"""We test these aspects of reconciling one workflow against a fake cluster, pass by pass:

container, steps and DAG templates; parameter passing; node names, IDs and fields; task
results (outputs, taskResultSynced); retries; the workflow deadline; shutdown (both
strategies, before and after pod creation); deleted pods; onExit; validation failures;
pod-build failures; and the pod clean-up that follows a persisted update.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from reference_impl.controller import errors
from reference_impl.controller.cleanup import decisions
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import naming
from reference_impl.controller.runtime import reconciling
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import FakeEffects
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import terminated
from tests.reference_impl.controller.conftest import waiting
from tests.reference_impl.controller.conftest import workflow

Json = dict[str, Any]

STEPS = """
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - name: a
        template: echo
        arguments: {parameters: [{name: msg, value: hi}]}
    - - name: b
        template: echo
        arguments: {parameters: [{name: msg, value: "{{steps.a.outputs.parameters.out}}"}]}
  - name: echo
    inputs: {parameters: [{name: msg}]}
    outputs: {parameters: [{name: out, valueFrom: {path: /tmp/out}}]}
    container: {image: busybox, command: [echo, "{{inputs.parameters.msg}}"]}
"""


def test_hello_world_runs_to_success_with_argo_labels_and_fields(hello_world):
    h = Harness(hello_world)
    h.reconcile()
    assert h.wf["status"]["phase"] == "Running"
    assert h.wf["metadata"]["labels"] == {
        "workflows.argoproj.io/phase": "Running",
        "workflows.argoproj.io/completed": "false",
    }
    root = h.node("hello")
    assert {
        k: root[k]
        for k in (
            "id",
            "name",
            "displayName",
            "type",
            "templateName",
            "templateScope",
            "phase",
        )
    } == {
        "id": "hello",
        "name": "hello",
        "displayName": "hello",
        "type": "Pod",
        "templateName": "main",
        "templateScope": "local/hello",
        "phase": "Pending",
    }
    assert root["taskResultSynced"] is True
    assert [p["metadata"]["name"] for p in h.effects.created] == ["hello"]
    h.succeed("hello")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
    assert h.wf["metadata"]["labels"]["workflows.argoproj.io/completed"] == "true"
    assert {"type": "Completed", "status": "True"} in h.wf["status"]["conditions"]
    assert h.node("hello")["outputs"] == {"exitCode": "0"}
    assert h.wf["status"]["progress"] == "1/1"
    assert h.wf["status"]["finishedAt"] == "2026-01-02T03:04:05Z"


def test_steps_pass_output_parameters_and_name_nodes_like_argo() -> None:
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.succeed("wf[0].a", outputs={"parameters": [{"name": "out", "value": "from-a"}]})
    h.reconcile()
    b = h.node("wf[1].b")
    assert b["displayName"] == "b"
    assert b["boundaryID"] == "wf"
    assert b["inputs"] == {"parameters": [{"name": "msg", "value": "from-a"}]}
    pod_b = h.pod_of("wf[1].b")
    assert pod_b["metadata"]["name"] == f"wf-echo-{naming.fnv32a('wf[1].b')}"
    assert pod_b["spec"]["containers"][1]["command"][-2:] == ["echo", "from-a"]
    assert h.node("wf[0].a")["children"] == [naming.node_id("wf", "wf[1]")]
    h.succeed("wf[1].b", outputs={"parameters": [{"name": "out", "value": "x"}]})
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
    assert h.node("wf")["outboundNodes"] == [naming.node_id("wf", "wf[1].b")]


def test_a_failed_step_fails_group_steps_and_workflow_with_argos_messages() -> None:
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.fail("wf[0].a")
    h.reconcile()
    child_id = naming.node_id("wf", "wf[0].a")
    assert h.node("wf[0].a")["message"] == "main: Error (exit code 1)"
    assert h.node("wf[0]")["message"] == f"child '{child_id}' failed"
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == f"child '{child_id}' failed"


DAG = """
spec:
  entrypoint: d
  templates:
  - name: d
    dag:
      tasks:
      - {name: A, template: leaf}
      - {name: B, template: leaf, dependencies: [A]}
      - {name: C, template: leaf, depends: "A.Failed"}
  - {name: leaf, container: {image: busybox, command: ["true"]}}
"""


def test_dag_runs_dependencies_first_and_omits_unmet_depends() -> None:
    h = Harness(workflow(DAG))
    h.reconcile()
    assert [
        p["metadata"]["annotations"]["workflows.argoproj.io/node-name"]
        for p in h.effects.created
    ] == ["wf.A"]
    h.succeed("wf.A")
    h.reconcile()
    assert h.node("wf.C")["phase"] == "Omitted"
    assert h.node("wf.C")["message"] == "omitted: depends condition not met"
    assert h.node("wf.B")["phase"] == "Pending"
    h.succeed("wf.B")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
    assert h.node("wf.A")["children"] == [
        naming.node_id("wf", "wf.B"),
        naming.node_id("wf", "wf.C"),
    ]


def test_dag_fails_when_a_target_branch_fails() -> None:
    h = Harness(workflow(DAG))
    h.reconcile()
    h.fail("wf.A")
    h.reconcile()
    assert h.node("wf.B")["phase"] == "Omitted"
    assert h.node("wf.C")["phase"] == "Pending"
    h.succeed("wf.C")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"


RETRY = """
metadata: {name: output-value-placeholders-wf}
spec:
  entrypoint: tell-pod-name
  templates:
  - name: tell-pod-name
    retryStrategy: {limit: 1}
    container: {image: busybox, command: [echo, "{{pod.name}}"]}
"""


def test_retries_create_numbered_attempts_until_the_limit() -> None:
    h = Harness(workflow(RETRY))
    h.reconcile()
    root = h.node("output-value-placeholders-wf")
    assert root["type"] == "Retry"
    first = h.pod_of("output-value-placeholders-wf(0)")
    assert (
        first["metadata"]["name"]
        == "output-value-placeholders-wf-tell-pod-name-3033990984"
    )
    assert (
        first["spec"]["containers"][1]["command"][-1]
        == "output-value-placeholders-wf-tell-pod-name-3033990984"
    )
    h.fail("output-value-placeholders-wf(0)")
    h.reconcile()
    assert h.node("output-value-placeholders-wf(1)")["phase"] == "Pending"
    h.fail("output-value-placeholders-wf(1)")
    h.reconcile()
    assert h.node("output-value-placeholders-wf")["message"] == "No more retries left"
    assert h.wf["status"]["phase"] == "Failed"


def test_task_results_hold_completion_and_merge_outputs() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    outputs: {parameters: [{name: out, valueFrom: {path: /tmp/out}}]}
    container: {image: busybox, command: ["true"]}
"""
    )
    h = Harness(wf)
    h.reconcile()
    h.set_pod("wf", pod_status("Running", main=terminated(0), wait=running()))
    h.report("wf", complete=False)
    h.reconcile()
    assert h.node("wf")["taskResultSynced"] is False
    assert h.node("wf")["phase"] == "Running"
    assert h.effects.terminated == ["wf"]
    h.set_pod("wf", pod_status("Succeeded", main=terminated(0), wait=terminated(0)))
    h.report("wf", outputs={"parameters": [{"name": "out", "value": "v"}]})
    h.reconcile()
    node = h.node("wf")
    assert node["taskResultSynced"] is True
    assert node["outputs"] == {
        "parameters": [{"name": "out", "value": "v"}],
        "exitCode": "0",
    }
    assert h.wf["status"]["phase"] == "Succeeded"


def test_workflow_deadline_terminates_running_pods(hello_world):
    hello_world["spec"]["activeDeadlineSeconds"] = 10
    h = Harness(hello_world)
    h.reconcile()
    assert h.pod_of("hello")["spec"]["activeDeadlineSeconds"] == 10
    h.set_pod("hello", pod_status("Running", main=running(), wait=running()))
    h.now = NOW + datetime.timedelta(seconds=11)
    h.reconcile()
    assert h.effects.terminated == ["hello"]
    assert h.node("hello")["phase"] == "Failed"
    assert h.node("hello")["message"] == "Step exceeded its deadline"
    assert h.wf["status"]["message"] == "Step exceeded its deadline"


def test_terminate_fails_running_nodes_with_two_spaces_and_stops_the_workflow() -> None:
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.set_pod("wf[0].a", pod_status("Running", main=running(), wait=running()))
    h.wf["spec"]["shutdown"] = "Terminate"
    h.reconcile()
    assert h.effects.terminated == [h.pod_of("wf[0].a")["metadata"]["name"]]
    assert h.node("wf[0].a")["message"] == "workflow shutdown with strategy:  Terminate"
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == "Stopped with strategy 'Terminate'"


def test_stop_before_pod_creation_fails_the_node_with_one_space() -> None:
    h = Harness(workflow(STEPS))
    h.wf["spec"]["shutdown"] = "Stop"
    h.reconcile()
    assert h.effects.created == []
    assert h.node("wf[0].a")["message"] == "workflow shutdown with strategy: Stop"


def test_a_vanished_running_pod_becomes_pod_deleted_after_the_grace(hello_world):
    h = Harness(hello_world)
    h.reconcile()
    h.set_pod("hello", pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    h.pods.clear()
    h.now = NOW + datetime.timedelta(seconds=5)
    h.reconcile()
    assert h.node("hello")["phase"] == "Running"
    h.now = NOW + datetime.timedelta(seconds=30)
    h.reconcile()
    assert (h.node("hello")["phase"], h.node("hello")["message"]) == (
        "Error",
        "pod deleted",
    )
    assert h.wf["status"]["phase"] == "Error"


def test_a_vanished_pending_pod_is_recreated(hello_world):
    h = Harness(hello_world)
    h.reconcile()
    h.effects.created.clear()
    h.pods.clear()
    h.now = NOW + datetime.timedelta(minutes=5)
    h.reconcile()
    assert h.node("hello")["phase"] == "Pending"
    assert [p["metadata"]["name"] for p in h.effects.created] == ["hello"]


def vanished_after_init_started(hello_world: Json, fault: Fault | None) -> Harness:
    """A Pending pod seen on a host (its init running), then gone a second later."""
    h = Harness(hello_world, settings=settings(fault=fault))
    h.reconcile()
    h.pod_of("hello")["spec"]["nodeName"] = "node-1"
    h.set_pod(
        "hello",
        pod_status(
            "Pending", init={"init": running()}, main=waiting("PodInitializing")
        ),
    )
    h.reconcile()
    assert h.node("hello")["hostNodeName"] == "node-1"
    h.effects.created.clear()
    h.pods.clear()
    h.now = NOW + datetime.timedelta(seconds=1)
    h.reconcile()
    return h


def test_a_pending_pod_gone_soon_after_it_was_seen_is_recreated(hello_world):
    h = vanished_after_init_started(hello_world, None)
    assert h.node("hello")["phase"] == "Pending"
    assert [p["metadata"]["name"] for p in h.effects.created] == ["hello"]


def test_pending_deleted_errors_makes_a_vanished_pending_pod_pod_deleted(
    hello_world,
):
    """The chaos negative control of pod-deleted-before-main-starts (WPC-STATUS-008):
    errored at once, not after the grace, since this pass would make the pod again."""
    h = vanished_after_init_started(hello_world, Fault.PENDING_DELETED_ERRORS)
    assert (h.node("hello")["phase"], h.node("hello")["message"]) == (
        "Error",
        "pod deleted",
    )
    assert h.effects.created == []


def test_pending_deleted_errors_spares_a_pod_never_seen(hello_world):
    """HelloWorld's canary: a just-created pod not yet in the cache is no deletion."""
    h = Harness(hello_world, settings=settings(fault=Fault.PENDING_DELETED_ERRORS))
    h.reconcile()
    h.pods.clear()
    h.now = NOW + datetime.timedelta(minutes=5)
    h.reconcile()
    assert h.node("hello")["phase"] == "Pending"


def aux_failed(hello_world: Json, aux: str, fault: Fault | None) -> Json:
    """The node of a pod whose main exited 0 and whose aux container was killed."""
    h = Harness(hello_world, settings=settings(fault=fault))
    h.reconcile()
    h.set_pod(
        "hello",
        pod_status(
            "Failed", aux=aux, main=terminated(0), wait=terminated(137, reason="Error")
        ),
    )
    h.reconcile()
    h.reconcile()
    return h.node("hello")


@pytest.mark.parametrize("aux", ["wait", "supervisor"])
def test_aux_failure_ignored_makes_a_failed_aux_container_succeed(hello_world, aux):
    """The chaos negative control of wait-killed-while-main-runs (WPC-STATUS-004)."""
    healthy = aux_failed(hello_world, aux, None)
    assert (healthy["phase"], healthy["message"]) == (
        "Error",
        f"{aux}: Error (exit code 137)",
    )
    broken = aux_failed(hello_world, aux, Fault.AUX_FAILURE_IGNORED)
    assert broken["phase"] == "Succeeded"
    assert "message" not in broken


@pytest.mark.parametrize(
    ("fault", "code", "reason"),
    [
        (Fault.OOM_REPORTED_AS_ERROR, 137, "OOMKilled"),
        (Fault.START_ERROR_AS_ERROR, 128, "StartError"),
    ],
)
def test_a_reported_as_error_fault_makes_that_main_failure_error(
    hello_world, fault, code, reason
):
    """The chaos negative controls of main-oom-killed and of
    executor-binary-missing-from-image-volume (node_is expects `Failed`)."""

    def node(with_fault: Fault | None) -> Json:
        h = Harness(hello_world, settings=settings(fault=with_fault))
        h.reconcile()
        h.set_pod(
            "hello",
            pod_status(
                "Failed", main=terminated(code, reason=reason), wait=terminated(0)
            ),
        )
        h.reconcile()
        return h.node("hello")

    message = f"main: {reason} (exit code {code})"
    assert (node(None)["phase"], node(None)["message"]) == ("Failed", message)
    assert (node(fault)["phase"], node(fault)["message"]) == ("Error", message)
    # Each fault misreports its own failure only.
    other = next(
        f
        for f in (Fault.OOM_REPORTED_AS_ERROR, Fault.START_ERROR_AS_ERROR)
        if f is not fault
    )
    assert node(other)["phase"] == "Failed"


def test_aux_failure_ignored_leaves_a_failed_main_alone(hello_world):
    h = Harness(hello_world, settings=settings(fault=Fault.AUX_FAILURE_IGNORED))
    h.reconcile()
    h.set_pod(
        "hello",
        pod_status(
            "Failed",
            main=terminated(3, reason="Error"),
            wait=terminated(137, reason="Error"),
        ),
    )
    h.reconcile()
    assert (h.node("hello")["phase"], h.node("hello")["message"]) == (
        "Failed",
        "main: Error (exit code 3)",
    )


def test_on_exit_runs_after_the_entrypoint_and_its_failure_fails_the_workflow() -> None:
    wf = workflow(
        """
spec:
  entrypoint: leaf
  onExit: bye
  templates:
  - {name: leaf, container: {image: busybox, command: ["true"]}}
  - {name: bye, container: {image: busybox, command: ["false"]}}
"""
    )
    h = Harness(wf)
    h.reconcile()
    h.succeed("wf")
    h.reconcile()
    exit_pod = h.pod_of("wf.onExit")
    assert exit_pod["metadata"]["labels"]["workflows.argoproj.io/on-exit"] == "true"
    assert h.node("wf.onExit")["nodeFlag"] == {"hooked": True}
    assert h.wf["status"]["phase"] == "Running"
    h.fail("wf.onExit")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == "main: Error (exit code 1)"


def test_an_invalid_spec_fails_the_workflow_without_nodes() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox}
    sidecars: [{name: wait, image: busybox}]
"""
    )
    h = Harness(wf)
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"
    assert (
        h.wf["status"]["message"]
        == 'invalid spec: templates.t.sidecars: "wait" is a reserved Argo container name'
    )
    assert h.wf["status"]["nodes"] == {}
    assert h.wf["metadata"]["labels"]["workflows.argoproj.io/completed"] == "true"


def test_a_pod_that_cannot_be_built_errors_the_node_and_workflow() -> None:
    wf = workflow(
        """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [ls], volumeMounts: [{name: nope, mountPath: /x}]}
"""
    )
    h = Harness(wf)
    h.reconcile()
    assert h.node("wf")["phase"] == "Error"
    assert h.wf["status"]["phase"] == "Error"
    assert (
        h.wf["status"]["message"]
        == "error in entry template execution: volume 'nope' not found in workflow spec"
    )


def test_after_persist_labels_pods_of_fulfilled_nodes_or_applies_pod_gc(hello_world):
    h = Harness(hello_world)
    h.reconcile()
    h.succeed("hello")
    h.reconcile()
    pods = list(h.pods.values())
    actions = reconciling.after_persist(workflow=h.wf, pods=pods, config_delay=5.0)
    assert [(a, p["metadata"]["name"], d) for a, p, d in actions] == [
        (decisions.Action.LABEL_COMPLETED, "hello", 0.0)
    ]
    h.wf["spec"]["podGC"] = {"strategy": "OnPodSuccess", "deleteDelayDuration": "30s"}
    actions = reconciling.after_persist(workflow=h.wf, pods=pods, config_delay=5.0)
    assert [(a, d) for a, _, d in actions] == [(decisions.Action.DELETE, 30.0)]


class QuotaEffects(FakeEffects):
    def create_pod(self, pod: Json) -> None:
        raise errors.ApiError(
            verb="POST",
            target="pods",
            status=403,
            reason='pods "hello" is forbidden: exceeded quota: q',
        )


def test_a_full_quota_keeps_the_node_pending_with_the_api_message(
    hello_world: Json,
) -> None:
    h = Harness(hello_world)
    h.effects = QuotaEffects()
    h.reconcile()
    assert h.node("hello")["phase"] == "Pending"
    assert h.node("hello")["message"] == 'pods "hello" is forbidden: exceeded quota: q'
    assert h.wf["status"]["phase"] == "Running"


def test_a_shutdown_verdict_survives_the_pods_own_termination() -> None:
    h = Harness(workflow(STEPS))
    h.reconcile()
    h.set_pod("wf[0].a", pod_status("Running", main=running(), wait=running()))
    h.wf["spec"]["shutdown"] = "Terminate"
    h.reconcile()
    h.set_pod(
        "wf[0].a",
        pod_status("Failed", main=terminated(143, reason="Error"), wait=terminated(0)),
    )
    h.reconcile()
    assert h.node("wf[0].a")["message"] == "workflow shutdown with strategy:  Terminate"


def sidecar_stopped(hello_world: Json, main: int, fault: Fault | None) -> Json:
    """The node of a pod whose main exited `main` and whose sidecar was stopped (143)."""
    h = Harness(hello_world, settings=settings(fault=fault))
    h.reconcile()
    main_state = terminated(main, reason="Error" if main else "Completed")
    h.set_pod(
        "hello",
        pod_status(
            "Failed",
            main=main_state,
            wait=terminated(0),
            sleeper=terminated(143, reason="Error"),
        ),
    )
    h.reconcile()
    h.reconcile()
    return h.node("hello")


_SLEEPER = "sleeper: Error (exit code 143)"
_MAIN_FAILED = "main: Error (exit code 1)"


@pytest.mark.parametrize(
    ("main", "fault", "expected"),
    [
        (0, None, ("Succeeded", None)),
        (0, Fault.SIDECAR_STOP_FAILS_NODE, ("Failed", _SLEEPER)),
        (0, Fault.STOPPED_SIDECAR_MESSAGE, ("Succeeded", None)),
        (1, None, ("Failed", _MAIN_FAILED)),
        (1, Fault.SIDECAR_STOP_FAILS_NODE, ("Failed", _MAIN_FAILED)),
        (1, Fault.STOPPED_SIDECAR_MESSAGE, ("Failed", _SLEEPER)),
    ],
)
def test_stopped_sidecar_faults_change_only_their_outcome_of_main(
    hello_world, main, fault, expected
):
    """The negative controls for WPC-KILL-001 (`sidecar-stop-fails-node`: main
    succeeded) and WPC-KILL-004 (`stopped-sidecar-message`: main failed)."""
    node = sidecar_stopped(hello_world, main, fault)
    assert (node["phase"], node.get("message")) == expected


MAIN_SIDECAR = """
spec:
  entrypoint: t
  templates:
  - name: t
    container: {image: busybox, command: [sh, -c, "true"]}
    sidecars: [{name: main, image: busybox, args: [sleep 1]}]
"""


def test_a_sidecar_named_main_is_rejected_without_the_fault() -> None:
    h = Harness(workflow(MAIN_SIDECAR))
    h.reconcile()
    assert h.wf["status"]["phase"] == "Failed"
    assert h.wf["status"]["message"] == (
        'invalid spec: templates.t.sidecars: "main" is a reserved Argo container name'
    )
    assert h.effects.created == []


def test_sidecar_main_dropped_runs_the_workflow_without_that_sidecar() -> None:
    # WPC-VALIDATE-005 says such a workflow must not run; the fault runs it to success.
    h = Harness(
        workflow(MAIN_SIDECAR), settings=settings(fault=Fault.SIDECAR_MAIN_DROPPED)
    )
    h.reconcile()
    assert h.wf["status"]["phase"] == "Running"
    [pod] = h.effects.created
    assert [c["name"] for c in pod["spec"]["containers"]] == ["wait", "main"]
    assert pod["spec"]["containers"][1]["command"][-3:] == ["sh", "-c", "true"]
    # The executors are not told of the dropped sidecar either.
    templates = [
        json.loads(e["value"])
        for c in pod["spec"]["containers"] + pod["spec"]["initContainers"]
        for e in c.get("env") or []
        if e["name"] == "ARGO_TEMPLATE"
    ]
    assert templates
    assert all(t["sidecars"] == [] for t in templates)
    h.succeed("wf")
    h.reconcile()
    assert h.wf["status"]["phase"] == "Succeeded"
    # The workflow's own spec is left as submitted.
    assert h.wf["spec"]["templates"][0]["sidecars"][0]["name"] == "main"


def step_a_succeeded(fault: Fault | None) -> Harness:
    """STEPS once `a`'s pod succeeded, its task result seen incomplete, then complete."""
    h = Harness(workflow(STEPS), settings=settings(fault=fault))
    h.reconcile()
    h.set_pod("wf[0].a", pod_status("Running", main=terminated(0), wait=running()))
    h.report("wf[0].a", complete=False)
    h.reconcile()
    h.succeed("wf[0].a", outputs={"parameters": [{"name": "out", "value": "from-a"}]})
    h.reconcile()
    return h


def test_outputs_after_success_writes_succeeded_before_the_outputs() -> None:
    # WPC-STATUS-010: the node must not be Succeeded before its outputs; the fault
    # writes one version with `a` Succeeded and no parameters, then merges them.
    h = step_a_succeeded(Fault.OUTPUTS_AFTER_SUCCESS)
    a = h.node("wf[0].a")
    assert a["phase"] == "Succeeded"
    assert a["outputs"] == {"exitCode": "0"}
    assert a["taskResultSynced"] is False
    # The next step still waits for the outputs: it gets them one pass later.
    assert naming.node_id("wf", "wf[1].b") not in h.wf["status"]["nodes"]
    h.reconcile()
    assert h.node("wf[0].a")["outputs"]["parameters"] == [
        {"name": "out", "value": "from-a"}
    ]
    assert h.node("wf[1].b")["inputs"] == {
        "parameters": [{"name": "msg", "value": "from-a"}]
    }


def test_without_the_fault_succeeded_comes_with_the_outputs() -> None:
    a = step_a_succeeded(None).node("wf[0].a")
    assert a["phase"] == "Succeeded"
    assert a["outputs"]["parameters"] == [{"name": "out", "value": "from-a"}]
