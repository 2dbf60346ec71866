"""The suspend and exit-hook probes of `chaos.workflow.probes`, against a fake session.

We test these aspects: `step_is_suspended` waits for a Running Suspend node and
records the vulnerable state with its startedAt and duration;
`suspend_ended_while_down` records the injection once the duration (and the
margin) has passed with the node Running and no controller pod, and is
Inconclusive when a controller pod exists or the node moved on;
`suspend_resumed_on_time` judges against the `startTime` of the controller pod
that was not there before the stop; `step_had_one_pod` counts the step's pods
in the recorded history and needs exactly one Pod node.
"""

from __future__ import annotations

import datetime
from types import SimpleNamespace
from typing import Any

import pytest

from chaos import sessions
from chaos.controller import pods as controller_pods
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.workflow import probes
from conformance.errors import WaitTimeout
from conformance.harness.cluster.timeouts import Timeouts
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod

STARTED = "2023-11-14T22:13:20Z"
T0 = 1_700_000_000.0
TEMPLATES = [{"name": "pause", "suspend": {"duration": "20"}}]


class FakeOps:
    """The workflow operations: `get` returns the workflow as set."""

    def __init__(self) -> None:
        self.workflow: dict[str, Any] = {}

    def get(self, name: str) -> dict[str, Any]:
        return self.workflow


def _controller_pod(uid: str, start: float | None) -> SimpleNamespace:
    moment = (
        datetime.datetime.fromtimestamp(start, tz=datetime.UTC)
        if start is not None
        else None
    )
    return SimpleNamespace(
        metadata=SimpleNamespace(name=f"ctl-{uid}", uid=uid, deletion_timestamp=None),
        status=SimpleNamespace(phase="Running", start_time=moment),
    )


@pytest.fixture
def session(tmp_path):
    ops = FakeOps()
    controllers: list[SimpleNamespace] = []
    fake = SimpleNamespace(
        session_id="test-probes",
        experiment="x",
        memo={},
        vulnerable=[],
        injections=[],
        failures=[],
        ops=ops,
        controllers=controllers,
        history_path=tmp_path / "history.jsonl",
        timeouts=Timeouts(poll_interval=0.1),
        settings=SimpleNamespace(timeout_scale=1.0),
        instance=SimpleNamespace(namespace="wpc-chaos-legacy"),
        profile=SimpleNamespace(controller_selector=lambda instance: "app=ctl"),
        clients=SimpleNamespace(
            core=SimpleNamespace(
                list_namespaced_pod=lambda ns, label_selector: SimpleNamespace(
                    items=list(controllers)
                )
            )
        ),
        workflow_ops=lambda: ops,
        workflow=lambda alias: "wf",
        was_vulnerable=lambda a, t: fake.vulnerable.append((a, t)),
        injected=lambda a, t: fake.injections.append((a, t)),
    )
    sessions.register(fake)  # type: ignore[arg-type]
    yield fake
    sessions.close(fake)  # type: ignore[arg-type]


CONFIG = {sessions.SESSION_KEY: "test-probes"}


def _suspended(phase="Running", finished=None, started=STARTED):
    node: dict[str, Any] = {
        "id": "wf-1",
        "type": "Suspend",
        "displayName": "pause",
        "templateName": "pause",
        "phase": phase,
        "startedAt": started,
    }
    if finished:
        node["finishedAt"] = finished
    return {
        "metadata": {"name": "wf"},
        "spec": {"templates": TEMPLATES},
        "status": {"phase": "Running", "nodes": {"wf-1": node}},
    }


def test_a_running_suspend_node_is_the_vulnerable_state(session):
    session.ops.workflow = _suspended()

    text = probes.step_is_suspended("pause", configuration=CONFIG)

    assert session.memo["suspend:pause"] == (T0, 20.0)
    assert session.vulnerable == [("step_is_suspended", text)]
    assert "Running since 2023-11-14T22:13:20Z, duration 20 s" in text


def test_a_duration_ended_with_no_controller_is_the_injection(session):
    session.ops.workflow = _suspended()
    session.memo["suspend:pause"] = (T0, 20.0)  # long past

    text = probes.suspend_ended_while_down("pause", configuration=CONFIG)

    assert session.injections == [("suspend_ended_while_down", text)]
    assert "no controller pod in wpc-chaos-legacy" in text


def test_a_controller_pod_when_the_duration_ended_is_inconclusive(session):
    session.ops.workflow = _suspended()
    session.memo["suspend:pause"] = (T0, 20.0)
    session.controllers.append(_controller_pod("u2", T0))

    with pytest.raises(Inconclusive, match="while a controller pod existed"):
        probes.suspend_ended_while_down("pause", configuration=CONFIG)
    assert session.injections == []


def test_a_node_resumed_with_the_controller_down_is_inconclusive(session):
    session.ops.workflow = _suspended(phase="Succeeded")
    session.memo["suspend:pause"] = (T0, 20.0)

    with pytest.raises(Inconclusive, match="Succeeded before its duration ended"):
        probes.suspend_ended_while_down("pause", configuration=CONFIG)


def test_the_resume_is_judged_against_the_new_controller_pod(session):
    session.ops.workflow = _suspended(
        phase="Succeeded", finished="2023-11-14T22:13:48Z"
    )
    session.memo["suspend:pause"] = (T0, 20.0)
    session.memo[controller_pods.BEFORE] = {"u1": "ctl-u1"}
    # The old pod still terminating started long before; only the new one counts.
    session.controllers.extend(
        [_controller_pod("u1", T0 - 600), _controller_pod("u2", T0 + 25)]
    )

    text = probes.suspend_resumed_on_time("pause", configuration=CONFIG)

    assert "resumed 3 s after the controller pod started" in text


def test_a_resume_without_a_new_controller_pod_is_inconclusive(session):
    session.ops.workflow = _suspended(
        phase="Succeeded", finished="2023-11-14T22:13:48Z"
    )
    session.memo["suspend:pause"] = (T0, 20.0)
    session.memo[controller_pods.BEFORE] = {"u1": "ctl-u1"}
    session.controllers.append(_controller_pod("u1", T0 - 600))

    with pytest.raises(Inconclusive, match="no controller pod started"):
        probes.suspend_resumed_on_time("pause", configuration=CONFIG)


def test_a_suspend_node_still_running_did_not_resume(session):
    session.ops.workflow = _suspended()
    session.memo["suspend:pause"] = (T0, 20.0)

    with pytest.raises(Unexpected, match="did not resume"):
        probes.suspend_resumed_on_time("pause", configuration=CONFIG)


def _hooked(*node_ids):
    nodes = {
        i: {"id": i, "type": "Pod", "displayName": "work.onExit", "phase": "Succeeded"}
        for i in node_ids
    }
    return {
        "metadata": {"name": "wf"},
        "status": {"phase": "Succeeded", "nodes": nodes},
    }


def _hook_pod(name):
    body = pod(name, node_id="wf-7", phase="Succeeded")
    body["metadata"]["annotations"]["workflows.argoproj.io/node-name"] = (
        "wf[0].work.onExit"
    )
    return body


def test_one_recorded_pod_for_the_hook_passes_and_two_fail(session):
    session.ops.workflow = _hooked("wf-7")
    b = HistoryBuilder()
    b.at(0).add("ADDED", _hook_pod("wf-hook-1"))
    b.write(session.history_path)

    assert "exactly one pod" in probes.step_had_one_pod(
        "work.onExit", configuration=CONFIG
    )

    b.at(9).add("ADDED", _hook_pod("wf-hook-2"))
    b.write(session.history_path)
    with pytest.raises(Unexpected, match="ran in 2 pods"):
        probes.step_had_one_pod("work.onExit", configuration=CONFIG)


def test_a_step_with_two_pod_nodes_fails_before_the_history_is_read(session):
    session.ops.workflow = _hooked("wf-7", "wf-8")

    with pytest.raises(Unexpected, match="expected one Pod node, found 2"):
        probes.step_had_one_pod("work.onExit", configuration=CONFIG)


def _pod_node(phase: str) -> dict[str, Any]:
    node = {"id": "wf-2", "name": "wf[0].work(0)", "type": "Pod"}
    node.update(displayName="work(0)", phase=phase, startedAt=STARTED)
    return {"metadata": {"name": "wf"}, "status": {"nodes": {"wf-2": node}}}


def test_a_node_the_workflow_records_running_is_the_vulnerable_state(session):
    session.ops.workflow = _pod_node("Running")

    text = probes.node_is_recorded("work", configuration=CONFIG)

    assert session.vulnerable == [("node_is_recorded", text)]
    assert text == "wf[0].work(0): recorded Running"


def test_a_node_still_recorded_pending_is_not_the_vulnerable_state(session):
    # Upstream v4.1.2 ran the pod while the Workflow still read Pending; deleting
    # then asks for another pod (WPC-STATUS-008), not `pod deleted`.
    session.ops.workflow = _pod_node("Pending")
    session.timeouts = Timeouts(poll_interval=0.05, node_phase_reported=0.2)

    with pytest.raises(
        WaitTimeout, match=r"record step work \(attempt 0\) Running"
    ) as caught:
        probes.node_is_recorded("work", configuration=CONFIG)
    assert session.vulnerable == []
    assert "nodes: work(0)=Pending" in str(caught.value), "the last Workflow read"
