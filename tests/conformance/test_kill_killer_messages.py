"""We test these aspects of the KILL killers' failure messages (issue 28), with fakes, no cluster:

- KillSidecars passes a conformant result, and fails naming the clause it checked when
  node `stopped` is not Succeeded (WPC-KILL-001, what `sidecar-stop-fails-node` does),
  when the stubborn sidecar was killed before the grace period (WPC-KILL-003,
  `sidecar-sigkill-early`) or when node `failing` lacks main's message (WPC-KILL-004,
  `stopped-sidecar-message`);
- KillInjectedSidecar passes a conformant result, and fails naming WPC-KILL-005 when
  the default-signalled container logged no SIGTERM (`kill-default-not-pid1`) and
  WPC-KILL-006 when the annotation's command did not run (`kill-cmd-ignored`);
- KillShutdown's first test passes a conformant result and fails naming WPC-KILL-009
  when main's command never saw SIGTERM (`terminate-with-sigkill`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.stage import injecting
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import failed_clauses
from conformance.report.items.outcomes import failure_kind
from conformance.tests.kill import test_kill_injected_sidecar as injected_scenario
from conformance.tests.kill import test_kill_shutdown as shutdown_scenario
from conformance.tests.kill import test_kill_sidecars as sidecars_scenario

Json = dict[str, Any]
T0 = datetime.datetime(2026, 11, 28, 12, 0, 0, tzinfo=datetime.UTC)
MAIN_FAILED = ("Failed", "main: Error (exit code 1)")


def ended(code: int, message: str | None = None, after: float = 0.0) -> Any:
    """A container state that terminated `after` seconds past T0."""
    finished = T0 + datetime.timedelta(seconds=after)
    terminated = SimpleNamespace(exit_code=code, message=message, finished_at=finished)
    return SimpleNamespace(terminated=terminated, running=None)


def pod(name: str, annotations: dict[str, str] | None = None, **states: Any) -> Any:
    statuses = [SimpleNamespace(name=n, state=s) for n, s in states.items()]
    return SimpleNamespace(
        metadata=SimpleNamespace(
            name=name,
            annotations={contract.NODE_ID: name, **(annotations or {})},
            deletion_timestamp=None,
        ),
        spec=SimpleNamespace(containers=[SimpleNamespace(name=n) for n in states]),
        status=SimpleNamespace(
            phase="Failed", container_statuses=statuses, init_container_statuses=[]
        ),
    )


def workflow(phase: str, nodes: dict[str, tuple[str, str]]) -> Json:
    return {
        "metadata": {"name": "wf"},
        "status": {
            "phase": phase,
            "nodes": {
                step: {"id": step, "displayName": step, "phase": p, "message": m}
                for step, (p, m) in nodes.items()
            },
        },
    }


@dataclasses.dataclass
class Cluster:
    """The fixtures a KILL scenario takes, over fixed pods and a fixed workflow."""

    pods: list[Any]
    result: Json

    def list_namespaced_pod(self, namespace: str, label_selector: str) -> Any:
        return SimpleNamespace(items=self.pods)

    def read_namespaced_pod(self, name: str, namespace: str) -> Any:
        return next(p for p in self.pods if p.metadata.name == name)

    def fixtures(self) -> dict[str, Any]:
        doc = {"spec": {"templates": [{"container": {"image": "tools"}}]}}
        return {
            "workflows": SimpleNamespace(
                submit=lambda _doc: "wf", wait_completed=lambda _name: self.result
            ),
            "manifest": lambda *_: doc,
            "kube_clients": SimpleNamespace(core=self),
            "namespace": "ns",
            "timeouts": Timeouts(),
            "observations": SimpleNamespace(record_workflow=lambda _wf: None),
            "test_labels": {},
        }


def run(scenario: Callable[..., None], cluster: Cluster) -> list[str] | None:
    """None when the scenario passes; else the clauses its failed assertion names."""
    wanted = scenario.__code__.co_varnames[: scenario.__code__.co_argcount]
    given = {k: v for k, v in cluster.fixtures().items() if k in wanted}
    try:
        scenario(**given)
    except AssertionError as exc:
        kind = failure_kind(when="call", exc=exc)
        assert kind is FailureKind.ASSERTION
        return failed_clauses(kind, exc)
    return None


# -- KillSidecars --------------------------------------------------------------------------

SIDECARS = sidecars_scenario.test_sidecars_are_stopped_after_main_exits_and_nodes_end_as_main_decided


def sidecars(
    *,
    stopped: tuple[str, str] = ("Succeeded", ""),
    killed_after: float = 6.0,
    failing: tuple[str, str] = MAIN_FAILED,
) -> Cluster:
    term = int(T0.timestamp())
    pods = [
        pod("stopped", main=ended(0), sleeper=ended(143), recorder=ended(143, "TERM")),
        pod(
            "stubborn",
            main=ended(0),
            stubborn=ended(137, f"TERM {term}", after=killed_after),
        ),
        pod("failing", main=ended(1), sleeper=ended(143, after=1)),
    ]
    nodes = {"stopped": stopped, "stubborn": ("Succeeded", ""), "failing": failing}
    return Cluster(pods, workflow("Failed", nodes))


def test_kill_sidecars_passes_a_conformant_result():
    assert run(SIDECARS, sidecars()) is None


@pytest.mark.parametrize(
    ("cluster", "clause"),
    [
        (
            sidecars(stopped=("Failed", "recorder: Error (exit code 143)")),
            "WPC-KILL-001",
        ),
        (sidecars(killed_after=2.0), "WPC-KILL-003"),
        (
            sidecars(failing=("Failed", "sleeper: Error (exit code 143)")),
            "WPC-KILL-004",
        ),
    ],
)
def test_kill_sidecars_names_the_clause_each_check_sees_broken(cluster, clause):
    assert run(SIDECARS, cluster) == [clause]


# -- KillInjectedSidecar -------------------------------------------------------------------

INJECTED = injected_scenario.test_injected_sidecars_are_signalled_through_exec_and_kill_cmd_annotation


def injected(default_log: str | None, custom_log: str) -> Cluster:
    kill_cmd = {injected_scenario.KILL_CMD: "[]"}
    pods = [
        pod("default", main=ended(0), injected=ended(143, default_log, after=1)),
        pod(
            "custom", kill_cmd, main=ended(0), injected=ended(143, custom_log, after=1)
        ),
    ]
    nodes = {"default": ("Succeeded", ""), "custom": ("Succeeded", "")}
    return Cluster(pods, workflow("Succeeded", nodes))


@pytest.fixture
def no_webhook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        injecting, "injected_sidecar", lambda *_, **__: contextlib.nullcontext()
    )


def test_kill_injected_sidecar_passes_a_conformant_result(no_webhook):
    assert run(INJECTED, injected("TERM", "kill-cmd 15\nTERM")) is None


@pytest.mark.parametrize(
    ("cluster", "clause"),
    [
        (injected(None, "kill-cmd 15\nTERM"), "WPC-KILL-005"),
        (injected("TERM", "TERM"), "WPC-KILL-006"),
    ],
    ids=["no-sigterm-logged", "kill-cmd-not-run"],
)
def test_kill_injected_sidecar_names_the_clause_each_check_sees_broken(
    no_webhook, cluster, clause
):
    assert run(INJECTED, cluster) == [clause]


# -- KillShutdown --------------------------------------------------------------------------

SHUTDOWN = shutdown_scenario.test_shutdown_deletes_pending_pods_and_sends_sigterm_to_running_containers


def shutdown(monkeypatch: pytest.MonkeyPatch, main_log: str | None) -> Cluster:
    """A shutdown seen once: the pending pod is being deleted, the running one ended."""
    pending = pod("pending")
    pending.status.phase = "Pending"
    pending.metadata.deletion_timestamp = T0
    running = pod("running", main=ended(143, main_log), sidecar=ended(143, "TERM"))
    cluster = Cluster([pending, running], workflow("Failed", {}))

    def once(check: Callable[[], Any], **_: Any) -> Any:
        found = check()
        assert not isinstance(found, NotYet), found
        return found

    monkeypatch.setattr(shutdown_scenario, "until", once)
    monkeypatch.setattr(shutdown_scenario, "_wait_started", lambda *_: "running")
    monkeypatch.setattr(shutdown_scenario, "_shutdown", lambda *_: None)
    monkeypatch.setattr(shutdown_scenario, "workflow_pods", lambda *_: cluster.pods)
    return cluster


def test_kill_shutdown_passes_a_conformant_result(monkeypatch):
    assert run(SHUTDOWN, shutdown(monkeypatch, "TERM")) is None


def test_kill_shutdown_names_wpc_kill_009_when_main_saw_no_sigterm(monkeypatch):
    assert run(SHUTDOWN, shutdown(monkeypatch, None)) == ["WPC-KILL-009"]
