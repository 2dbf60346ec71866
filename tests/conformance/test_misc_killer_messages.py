"""We test these aspects of five killers' failure messages (issue 28), with fakes, no cluster:

- ResultOutputArtifacts passes a conformant result, and fails naming WPC-RESULT-008
  when `consume` received other bytes than `produce` left, or `produce` lists its
  artifact without an `s3.key`;
- ValidateInitlessArtifactMount passes a conformant result, and fails naming
  WPC-VALIDATE-008 when the node's message lacks the clause's ending or a pod was made;
- StatusPodPhases fails naming WPC-STATUS-001 when a node never shows its Pending
  pod's reason within the pod-creation bound (its wait is the clause's limit);
- StatusPodDeletion passes a conformant result, and fails naming WPC-STATUS-008 when
  no new pod comes for the node whose Pending pod was deleted (same kind of wait) or
  that node does not end `Succeeded`;
- StatusParallelism passes a conformant result, and fails naming WPC-STATUS-020 when
  the workflow ends `Error` with `Max parallelism reached` on its DAG.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from conformance import contract
from conformance.errors import WaitTimeout
from conformance.harness.cluster.timeouts import Timeouts
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import failed_clauses
from conformance.report.items.outcomes import failure_kind
from conformance.tests.result import test_result_output_artifacts as artifacts_scenario
from conformance.tests.status import test_status_parallelism as parallelism_scenario
from conformance.tests.status import test_status_pod_deletion as deletion_scenario
from conformance.tests.status import test_status_pod_phases as phases_scenario
from conformance.tests.validate import (
    test_validate_initless_artifact_mount as mount_scenario,
)

Json = dict[str, Any]


def run(scenario: Callable[..., None], fixtures: dict[str, Any]) -> list[str] | None:
    """None when the scenario passes; else the clauses its failed assertion names."""
    wanted = scenario.__code__.co_varnames[: scenario.__code__.co_argcount]
    try:
        scenario(**{k: v for k, v in fixtures.items() if k in wanted})
    except AssertionError as exc:
        kind = failure_kind(when="call", exc=exc)
        assert kind is FailureKind.ASSERTION
        return failed_clauses(kind, exc)
    return None


def pods(*items: Any) -> Any:
    """A CoreV1 fake whose list_namespaced_pod answers `items`."""
    return SimpleNamespace(
        list_namespaced_pod=lambda *_, **__: SimpleNamespace(items=list(items)),
        create_namespaced_config_map=lambda *_, **__: None,
    )


def fixtures(result: Json, core: Any = None, **extra: Any) -> dict[str, Any]:
    return {
        "workflows": SimpleNamespace(
            submit=lambda _doc: "wf",
            wait_completed=lambda _name: result,
            completed=lambda _doc, observations: ("wf", result),
            namespace="ns",
        ),
        "manifest": lambda **_: {
            "spec": {"templates": [{"container": {"image": "tools"}}]}
        },
        "kube_clients": SimpleNamespace(core=core or pods()),
        "namespace": "ns",
        "timeouts": Timeouts(),
        "observations": SimpleNamespace(
            alias=lambda *_: None, record_workflow=lambda _wf: None
        ),
        "artifact_repository": None,
        "test_labels": {},
        **extra,
    }


def timeout(**kw: Any) -> WaitTimeout:
    return WaitTimeout(describe=kw["describe"], timeout=kw["timeout"], last_observed="")


# -- ResultOutputArtifacts -----------------------------------------------------------------

ARTIFACTS = artifacts_scenario.test_an_output_artifact_reaches_the_next_task_through_the_repository


def artifacts_run(
    monkeypatch: pytest.MonkeyPatch, *, received: str, key: str = "wf/produce/data.tgz"
) -> list[str] | None:
    monkeypatch.setattr(
        artifacts_scenario,
        "uuid",
        SimpleNamespace(uuid4=lambda: SimpleNamespace(hex="m")),
    )
    produce = {
        "displayName": "produce",
        "outputs": {"artifacts": [{"name": "data", "s3": {"key": key}}]},
    }
    consume = {
        "displayName": "consume",
        "outputs": {
            "parameters": [
                {"name": "received", "value": received},
                {"name": "greeting", "value": "hello"},
            ]
        },
    }
    workflow = {"status": {"phase": "Succeeded", "nodes": {"p": produce, "c": consume}}}
    return run(ARTIFACTS, fixtures(workflow))


def test_result_output_artifacts_passes_a_conformant_result(monkeypatch):
    assert artifacts_run(monkeypatch, received="run m\nline two") is None


@pytest.mark.parametrize(
    ("received", "key"),
    [("run m\nline two\n", "wf/produce/data.tgz"), ("run m\nline two", "")],
    ids=["other-bytes", "no-s3-key"],
)
def test_result_output_artifacts_names_wpc_result_008(monkeypatch, received, key):
    assert artifacts_run(monkeypatch, received=received, key=key) == ["WPC-RESULT-008"]


# -- ValidateInitlessArtifactMount ---------------------------------------------------------

MOUNT = (
    mount_scenario.test_initless_input_artifact_above_a_volume_mount_fails_without_a_pod
)
MOUNT_MESSAGE = (
    'input artifact "data" path "/data" is an ancestor of volume mount "/data/cache": '
    + mount_scenario.SUFFIX
)


def mount_run(message: str, *items: Any) -> list[str] | None:
    workflow = {"status": {"nodes": {"wf": {"phase": "Error", "message": message}}}}
    return run(MOUNT, fixtures(workflow, pods(*items)))


def test_validate_initless_artifact_mount_passes_a_conformant_result():
    assert mount_run(MOUNT_MESSAGE) is None


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (MOUNT_MESSAGE.removesuffix(" mounted volume"), ()),
        ("staging would clear a volume", ()),
        (MOUNT_MESSAGE, (SimpleNamespace(metadata=SimpleNamespace(name="wf")),)),
    ],
    ids=["suffix", "prefix", "a-pod"],
)
def test_validate_initless_artifact_mount_names_wpc_validate_008(message, items):
    assert mount_run(message, *items) == ["WPC-VALIDATE-008"]


# -- StatusPodPhases -----------------------------------------------------------------------

PHASES = phases_scenario.test_the_node_is_pending_with_the_pods_reason_then_running


def test_status_pod_phases_names_wpc_status_001_when_no_node_shows_the_reason(
    monkeypatch,
):
    def until(check: Any, **kw: Any) -> Any:
        raise timeout(**kw)

    monkeypatch.setattr(phases_scenario, "until", until)
    assert run(PHASES, fixtures({})) == ["WPC-STATUS-001"]


# -- StatusPodDeletion ---------------------------------------------------------------------

DELETION = deletion_scenario.test_a_deleted_running_pod_errors_its_node_and_a_deleted_pending_pod_is_recreated


def pod(uid: str, node_id: str) -> Any:
    return SimpleNamespace(
        metadata=SimpleNamespace(
            name=uid, uid=uid, annotations={deletion_scenario.NODE_ID: node_id}
        )
    )


def deletion_run(
    monkeypatch: pytest.MonkeyPatch, *, new_pod: bool, pending_phase: str
) -> list[str] | None:
    old = pod("old", "p")
    waits = iter([(pod("r", "r"), {"id": "r"}), (old, {"id": "p"})])

    def until(check: Any, **kw: Any) -> Any:
        if kw["describe"] == "a new pod for the pending node" and not new_pod:
            raise timeout(**kw)
        return next(waits, None)

    monkeypatch.setattr(deletion_scenario, "until", until)
    monkeypatch.setattr(deletion_scenario, "delete_now", lambda *_: None)
    nodes = {
        "r": {"id": "r", "displayName": "running", "phase": "Error"},
        "p": {"id": "p", "displayName": "pending", "phase": pending_phase},
    }
    nodes["r"]["message"] = "pod deleted"
    workflow = {"status": {"phase": "Error", "nodes": nodes}}
    return run(DELETION, fixtures(workflow, pods(pod("new", "p"))))


def test_status_pod_deletion_passes_a_conformant_result(monkeypatch):
    assert deletion_run(monkeypatch, new_pod=True, pending_phase="Succeeded") is None


@pytest.mark.parametrize(
    ("new_pod", "pending_phase"),
    [(False, "Error"), (True, "Error")],
    ids=["no-new-pod", "not-succeeded"],
)
def test_status_pod_deletion_names_wpc_status_008(monkeypatch, new_pod, pending_phase):
    found = deletion_run(monkeypatch, new_pod=new_pod, pending_phase=pending_phase)
    assert found == ["WPC-STATUS-008"]


# -- StatusParallelism ---------------------------------------------------------------------

PARALLELISM = (
    parallelism_scenario.test_an_exit_handler_in_the_last_parallelism_slot_fails_nothing
)


def parallelism_run(
    monkeypatch: pytest.MonkeyPatch, *, phase: str, message: str
) -> list[str] | None:
    handler = {"id": "h", "name": "wf.a.onExit", "phase": "Succeeded"}
    nodes = [
        {"id": "wf", "name": "wf", "type": "DAG", "phase": phase, "message": message},
        {"id": "a", "name": "wf.a", "phase": "Succeeded"},
        handler,
    ]
    status = {"phase": phase, "nodes": {n["id"]: n for n in nodes}}
    if message:
        status["message"] = message
    exit_pod = {
        "metadata": {
            "labels": {parallelism_scenario.ON_EXIT: "true"},
            "annotations": {contract.NODE_ID: "h"},
        }
    }
    task_pod = {"metadata": {"annotations": {contract.NODE_ID: "a"}}}
    monkeypatch.setattr(
        parallelism_scenario,
        "recording",
        SimpleNamespace(
            Recorder=SimpleNamespace(
                pods=lambda *_: contextlib.nullcontext(SimpleNamespace(events=list))
            ),
            settle_pod_counts=lambda *_: None,
            pods_of_workflow=lambda *_: {"a": task_pod, "h": exit_pod},
        ),
    )
    return run(PARALLELISM, fixtures({"status": status}))


def test_status_parallelism_passes_a_conformant_result(monkeypatch):
    assert parallelism_run(monkeypatch, phase="Succeeded", message="") is None


def test_status_parallelism_names_wpc_status_020_for_max_parallelism_reached(
    monkeypatch,
):
    found = parallelism_run(
        monkeypatch, phase="Error", message="Max parallelism reached"
    )
    assert found == ["WPC-STATUS-020"]
