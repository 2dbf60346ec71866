"""The steady-state probes wait for recovery within a named bound and say what they saw.

We test these aspects:

- `controller_is_available` is no point check: a controller that comes back
  within the bound holds (three polls in a row), and one that does not fails
  with what was expected, within which bound and where the bound comes from
  (the clause's, the experiment's recovery time, the probe's default), and
  what was last observed (phase, readiness, restarts);
- a wait before the method is recorded in the session (the previous
  experiment's aftermath), one after the method is not;
- the report's steady-state details say `held` or `not met: <expected and
  observed>`, never "succeeded (tolerance not met)";
- through chaoslib's real `run_experiment`: a controller that never becomes
  ready fails the hypothesis, and the ChaosReport quotes the probe's evidence;
- between experiments (issue 31): one still coming back from the last
  experiment is waited for before the method, and the wait is told in
  `steadyStateBefore` and shaded on the timeline; one that is gone after the
  rollbacks fails the steady state after of the experiment that left it so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from chaoslib.experiment import run_experiment

from chaos import declarations
from chaos import sessions
from chaos.errors import Unexpected
from chaos.lifecycle import control
from chaos.lifecycle import instances
from chaos.lifecycle import judging
from chaos.lifecycle import probes
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import preparing
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod

CONFIG = {sessions.SESSION_KEY: "test-steady"}
DECLARED = declarations.of({"extensions": [{"name": "wpc", "experiment": "e"}]})


def _controller(ready: bool, restarts: int = 0) -> SimpleNamespace:
    return SimpleNamespace(
        metadata=SimpleNamespace(name="ctl", uid="c1", deletion_timestamp=None),
        spec=SimpleNamespace(node_name="n"),
        status=SimpleNamespace(
            phase="Running",
            container_statuses=[SimpleNamespace(ready=ready, restart_count=restarts)],
        ),
    )


class Controllers:
    """The controller pods each list call sees: `script` in order, then the last."""

    def __init__(self, *script: list[SimpleNamespace]) -> None:
        self.script = list(script)
        self.calls = 0

    def list_namespaced_pod(self, namespace, label_selector=None):
        self.calls += 1
        step = self.script[min(self.calls, len(self.script)) - 1]
        return SimpleNamespace(items=step)


def _session(core: Controllers, *, declared=DECLARED, phase=sessions.BEFORE):
    fake = sessions.Session(
        session_id="test-steady",
        experiment="e",
        settings=SimpleNamespace(timeout_scale=0.01),  # type: ignore[arg-type]
        profile=SimpleNamespace(controller_selector=lambda i: "app=ctl"),  # type: ignore[arg-type]
        instance=SimpleNamespace(namespace="wpc-chaos-legacy"),  # type: ignore[arg-type]
        driver=None,  # type: ignore[arg-type]
        clients=SimpleNamespace(core=core),  # type: ignore[arg-type]
        timeouts=Timeouts(poll_interval=0.01),
        run_dir=Path("."),
        run_id="r",
        declaration=declared,
    )
    fake.phase = phase
    return fake


@pytest.fixture
def registered():
    opened: list[sessions.Session] = []

    def register(session: sessions.Session) -> sessions.Session:
        sessions.register(session)
        opened.append(session)
        return session

    yield register
    for session in opened:
        sessions.close(session)


def test_a_controller_coming_back_is_waited_for_and_the_wait_recorded(registered):
    core = Controllers([], [_controller(False, restarts=1)], [_controller(True, 1)])
    session = registered(_session(core))

    assert probes.controller_is_available(configuration=CONFIG) is True

    assert core.calls == 2 + probes.AVAILABLE_CONSECUTIVE
    [wait] = session.waits
    assert wait.label == (
        "waited for exactly one running, ready controller pod in wpc-chaos-legacy "
        "(first observed: no pods)"
    )


def test_no_wait_is_recorded_after_the_method(registered):
    session = registered(
        _session(Controllers([], [_controller(True)]), phase=sessions.AFTER)
    )
    assert probes.controller_is_available(configuration=CONFIG) is True
    assert session.waits == []


def test_a_controller_that_stays_away_fails_with_what_was_expected_and_seen(
    registered,
):
    declared = replace(DECLARED, recovery_seconds=30.0)
    registered(_session(Controllers([_controller(False, 4)]), declared=declared))

    with pytest.raises(Unexpected) as caught:
        probes.controller_is_available(configuration=CONFIG)

    assert str(caught.value) == (
        "expected exactly one running, ready controller pod in wpc-chaos-legacy "
        "within 0.3 s (the experiment's recovery time, 30 s x timeout scale 0.01); "
        "last observed: ctl (Running, ready 0/1, restarts 4)"
    )


def test_the_bound_is_the_clause_s_then_the_experiment_s_then_the_probe_s():
    session = _session(Controllers())
    assert probes.bound(session, 120.0, None) == (
        1.2,
        "the probe's default, 120 s x timeout scale 0.01",
    )
    session.declaration = replace(DECLARED, recovery_seconds=60.0)
    assert probes.bound(session, 120.0, None)[1].startswith(
        "the experiment's recovery time, 60 s"
    )
    assert probes.bound(session, 120.0, 10)[1].startswith("the clause's bound, 10 s")


def _journal(*runs: dict[str, Any], met: bool) -> dict[str, Any]:
    return {"steady_states": {"after": {"steady_state_met": met, "probes": list(runs)}}}


def test_the_details_say_what_was_expected_and_observed():
    held = {"activity": {"name": "cluster-is-healthy"}, "status": "succeeded"}
    raised = {
        "activity": {"name": "controller-is-available", "tolerance": True},
        "status": "failed",
        "exception": [
            "chaoslib.exceptions.ActivityFailed: chaos.errors.Unexpected: expected "
            "one pod within 3 s (the probe's default); last observed: no pods\n"
        ],
    }
    returned = {
        "activity": {"name": "other", "tolerance": True},
        "status": "succeeded",
        "output": False,
        "tolerance_met": False,
    }

    check = judging.steady_state(_journal(held, raised, returned, met=False), "after")

    assert check.details == (
        "cluster-is-healthy: held; controller-is-available: not met: expected one "
        "pod within 3 s (the probe's default); last observed: no pods; other: not "
        "met: expected True, observed False"
    )
    assert "tolerance not met" not in check.details


def write_history(configuration: dict[str, Any] | None = None) -> str:
    """The tiny experiment's method: a recorded history, so a timeline is drawn."""
    session = sessions.current(configuration)
    builder = HistoryBuilder()
    builder.at(0).add("ADDED", pod("wf-a", phase="Running"))
    session.history_path.parent.mkdir(parents=True, exist_ok=True)
    builder.write(session.history_path)
    session.recorded = True
    return str(session.history_path)


def _run(tmp_path: Path, monkeypatch, core: Controllers) -> dict[str, Any]:
    """Run the tiny experiment through chaoslib; its ChaosReport entry."""
    monkeypatch.setattr(instances, "locate", lambda settings: ("kc", "kubectl"))
    monkeypatch.setattr(
        control.kube, "connect", lambda kubeconfig: SimpleNamespace(core=core, api=None)
    )
    monkeypatch.setattr(preparing, "check_marker", lambda clients, allow_foreign: {})
    monkeypatch.setattr(control, "Timeouts", lambda: Timeouts(poll_interval=0.05))
    experiment = {
        "version": "1.0.0",
        "title": "t",
        "description": "d",
        # a short recovery time rather than a timeout scale below 1 (refused)
        "extensions": [
            {
                "name": "wpc",
                "experiment": "e",
                "layouts": ["legacy"],
                "recoverySeconds": 0.3,
            }
        ],
        "configuration": {
            "wpc_reports_dir": str(tmp_path),
            "wpc_instance": "external",
        },
        "controls": [
            {
                "name": "wpc",
                "provider": {"type": "python", "module": "chaos.lifecycle.control"},
            }
        ],
        "steady-state-hypothesis": {
            "title": "controller",
            "probes": [
                {
                    "type": "probe",
                    "name": "controller-is-available",
                    "tolerance": True,
                    "provider": {
                        "type": "python",
                        "module": "chaos.lifecycle.probes",
                        "func": "controller_is_available",
                    },
                }
            ],
        },
        "method": [
            {
                "type": "action",
                "name": "write-history",
                "provider": {
                    "type": "python",
                    "module": __name__,
                    "func": "write_history",
                },
            }
        ],
    }
    run_experiment(experiment)
    report = yaml.safe_load((tmp_path / "chaos-reference.yaml").read_text())
    [entry] = report["experiments"]
    return dict(entry)


EXPECTED = "exactly one running, ready controller pod in wpc-chaos-legacy"


def test_through_chaoslib_the_report_quotes_what_the_probe_saw(
    tmp_path: Path, monkeypatch
):
    entry = _run(tmp_path, monkeypatch, Controllers([_controller(False, restarts=7)]))

    assert entry["outcome"] == "error"
    assert entry["steadyStateBefore"]["details"] == (
        f"controller-is-available: not met: expected {EXPECTED} within 0.3 s (the "
        "experiment's recovery time, 0.3 s x timeout scale 1); last observed: ctl (Running, "
        "ready 0/1, restarts 7)"
    )


def test_an_experiment_starts_once_the_last_one_s_aftermath_is_over(
    tmp_path: Path, monkeypatch
):
    coming_back = [_controller(False, restarts=1)]
    entry = _run(
        tmp_path, monkeypatch, Controllers(coming_back, [_controller(True, 1)])
    )

    assert entry["outcome"] != "error", entry
    assert entry["steadyStateBefore"]["ok"]
    details = entry["steadyStateBefore"]["details"]
    assert details.startswith(
        f"controller-is-available: held; waited for {EXPECTED} (first observed: ctl "
        "(Running, ready 0/1, restarts 1)): "
    ), details
    timeline = Path(entry["timelinePath"]).read_text()
    assert '<rect class="wait"' in timeline
    assert entry["steadyStateAfter"] == {
        "ok": True,
        "details": "controller-is-available: held",
    }


def test_a_controller_gone_after_the_rollbacks_fails_that_experiment(
    tmp_path: Path, monkeypatch
):
    ready = [_controller(True)]
    hypotheses = [ready] * (2 * probes.AVAILABLE_CONSECUTIVE)
    entry = _run(
        tmp_path, monkeypatch, Controllers(*hypotheses, [_controller(False, 2)])
    )

    assert entry["steadyStateBefore"]["ok"]
    assert entry["steadyStateAfter"] == {
        "ok": False,
        "details": (
            "controller-is-available: held; after the rollbacks: expected "
            f"{EXPECTED} within 0.3 s (the experiment's recovery time, 0.3 s x "
            "timeout scale 1); last observed: ctl (Running, ready 0/1, restarts 2)"
        ),
    }


class BrokenAfter(Controllers):
    """The API answers the two hypotheses, then breaks."""

    def list_namespaced_pod(self, namespace, label_selector=None):
        if self.calls >= 2 * probes.AVAILABLE_CONSECUTIVE:
            raise RuntimeError("connection refused")
        return super().list_namespaced_pod(namespace, label_selector)


def test_a_last_look_that_cannot_be_taken_is_an_error_and_the_report_is_written(
    tmp_path: Path, monkeypatch
):
    entry = _run(tmp_path, monkeypatch, BrokenAfter([_controller(True)]))

    assert entry["outcome"] == "error"
    assert entry["failedChecks"][-1] == {
        "activity": "teardown",
        "kind": "error",
        "message": "could not check the controller after the rollbacks: "
        "RuntimeError: connection refused",
    }
