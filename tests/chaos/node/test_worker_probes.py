"""The worker-fault activities of `chaos.node.placement` and `chaos.node.workers`, faked.

We test these aspects: `step_runs_on_a_free_worker` records the step's worker as
the vulnerable state, and refuses a control-plane node or a node with no spare
(`Unsupported`: the experiment is not applicable) or the controller's node
(`Inconclusive`); `node_is_not_ready` records the injection once the Node's Ready
condition is no longer True; `retry_ran_elsewhere` wants the first attempt on the
faulted node and the last on another; a drain cordons the node, evicts only the
experiment's pods there and registers the uncordon as the undo; a worker fault on
a provider without the capability is `Unsupported`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chaos import sessions
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.errors import Unsupported
from chaos.node import placement
from chaos.node import workers
from conformance.harness.cluster.timeouts import Timeouts

CONFIG = {sessions.SESSION_KEY: "test-workers"}
CP = {"node-role.kubernetes.io/control-plane": ""}


def _node(name: str, labels: dict[str, str] | None = None, ready: str = "True"):
    return SimpleNamespace(
        metadata=SimpleNamespace(name=name, labels=labels or {}),
        spec=SimpleNamespace(unschedulable=False, taints=[]),
        status=SimpleNamespace(
            conditions=[SimpleNamespace(type="Ready", status=ready)]
        ),
    )


def _pod(name: str, node: str, uid: str = "u1"):
    return SimpleNamespace(
        metadata=SimpleNamespace(name=name, uid=uid, deletion_timestamp=None),
        spec=SimpleNamespace(node_name=node),
        status=SimpleNamespace(phase="Running"),
    )


class FakeCore:
    """Nodes, the experiment's pods and the controller's pods; records writes."""

    def __init__(self) -> None:
        self.nodes = {
            "k-control-plane": _node("k-control-plane", CP),
            "k-worker": _node("k-worker"),
            "k-worker2": _node("k-worker2"),
        }
        self.pods = [_pod("step", "k-worker"), _pod("other", "k-worker2", "u2")]
        self.controllers = [_pod("ctl", "k-worker2", "c1")]
        self.patches: list[tuple[str, Any]] = []
        self.evicted: list[str] = []

    def list_node(self):
        return SimpleNamespace(items=list(self.nodes.values()))

    def read_node(self, name):
        return self.nodes[name]

    def patch_node(self, name, body):
        self.patches.append((name, body))
        self.nodes[name].spec.unschedulable = body["spec"]["unschedulable"]

    def list_namespaced_pod(self, namespace, label_selector=None, field_selector=None):
        if label_selector:
            return SimpleNamespace(items=list(self.controllers))
        assert namespace == "ns"
        node = field_selector.removeprefix("spec.nodeName=")
        return SimpleNamespace(items=[p for p in self.pods if p.spec.node_name == node])

    def create_namespaced_pod_eviction(self, name, namespace, body):
        assert body.metadata.name == name
        self.evicted.append(name)


@pytest.fixture
def session(monkeypatch):
    core = FakeCore()
    fake = SimpleNamespace(
        session_id="test-workers",
        experiment="x",
        namespace="ns",
        memo={},
        vulnerable=[],
        injections=[],
        failures=[],
        restorers={},
        core=core,
        workflow_doc={},
        timeouts=Timeouts(poll_interval=0.05),
        settings=SimpleNamespace(timeout_scale=0.01, provider="local", cluster="k"),
        instance=SimpleNamespace(namespace="wpc-chaos-legacy"),
        profile=SimpleNamespace(controller_selector=lambda instance: "app=ctl"),
        clients=SimpleNamespace(core=core),
        workflow=lambda alias: "wf",
        workflow_ops=lambda: SimpleNamespace(get=lambda name: fake.workflow_doc),
        was_vulnerable=lambda a, t: fake.vulnerable.append((a, t)),
        injected=lambda a, t: fake.injections.append((a, t)),
        fault_began=lambda label, restore=None: fake.restorers.update({label: restore}),
        fault_ended=lambda label: fake.restorers.pop(label, None),
    )
    monkeypatch.setattr(
        placement.finding, "step_pods", lambda s, wf, step: [core.pods[0]]
    )
    sessions.register(fake)  # type: ignore[arg-type]
    yield fake
    sessions.close(fake)  # type: ignore[arg-type]


def test_a_step_on_a_worker_without_the_controller_is_the_vulnerable_state(session):
    text = placement.step_runs_on_a_free_worker("work", configuration=CONFIG)
    assert session.memo["node:work"] == "k-worker"
    assert session.vulnerable == [("step_runs_on_a_free_worker", text)]
    assert "spare nodes ['k-control-plane', 'k-worker2']" in text


def test_the_controllers_node_is_inconclusive(session):
    session.core.controllers[0].spec.node_name = "k-worker"
    with pytest.raises(Inconclusive, match="shares k-worker"):
        placement.step_runs_on_a_free_worker("work", configuration=CONFIG)


def test_a_single_node_cluster_skips(session):
    session.core.nodes = {"wpc": _node("wpc", CP)}
    session.core.pods[0].spec.node_name = "wpc"
    with pytest.raises(Unsupported, match="control-plane node"):
        placement.step_runs_on_a_free_worker("work", configuration=CONFIG)
    session.core.nodes = {"wpc": _node("wpc")}
    with pytest.raises(Unsupported, match="no node but wpc"):
        placement.step_runs_on_a_free_worker("work", configuration=CONFIG)


def test_a_node_that_stopped_reporting_is_the_injection(session):
    session.memo["node:work"] = "k-worker"
    session.core.nodes["k-worker"].status.conditions[0].status = "Unknown"
    text = placement.node_is_not_ready("work", configuration=CONFIG)
    assert session.injections == [("node_is_not_ready", text)]
    assert "Ready=Unknown" in text


def test_a_node_that_stays_ready_is_not(session):
    session.memo["node:work"] = "k-worker"
    with pytest.raises(Exception, match="NotReady"):
        placement.node_is_not_ready("work", configuration=CONFIG)
    assert session.injections == []


def _attempts(*hosts: str) -> dict[str, Any]:
    nodes = {
        f"n{i}": {
            "type": "Pod",
            "displayName": f"work({i})",
            "startedAt": f"2026-01-01T00:00:0{i}Z",
            "hostNodeName": host,
        }
        for i, host in enumerate(hosts)
    }
    return {"metadata": {"name": "wf"}, "status": {"nodes": nodes}}


def test_the_retry_must_run_on_another_node(session):
    session.memo["node:work"] = "k-worker"
    session.workflow_doc = _attempts("k-worker", "k-worker2")
    assert "['k-worker', 'k-worker2']" in placement.retry_ran_elsewhere(
        "work", configuration=CONFIG
    )
    session.workflow_doc = _attempts("k-worker", "k-worker")
    with pytest.raises(Unexpected, match="the last elsewhere"):
        placement.retry_ran_elsewhere("work", configuration=CONFIG)


def test_a_drain_cordons_and_evicts_only_the_experiments_pods_there(session):
    session.memo["node:work"] = "k-worker"
    text = workers.drain_step_node("work", configuration=CONFIG)
    assert session.core.evicted == ["step"]
    assert session.core.nodes["k-worker"].spec.unschedulable is True
    assert session.injections == [("drain_step_node", text)]
    session.restorers[workers.CORDONED]()
    assert session.core.nodes["k-worker"].spec.unschedulable is False


def test_freezing_needs_the_worker_capability(session):
    session.memo["node:work"] = "k-worker"
    with pytest.raises(Unsupported, match="local provider cannot take a worker"):
        workers.freeze_step_node("work", configuration=CONFIG)
