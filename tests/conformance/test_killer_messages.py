"""We test these aspects of the killers' failure messages (issue 11), with fakes, no cluster:

- StatusAuxFaults' `check_node` names, in its failed assertion, the clause that
  sets what it checked for that case: main's exit code (WPC-HANDSHAKE-006 for a
  FAILED marker, what the `exit-1-not-65` fault breaks) or the node's phase and
  message (WPC-STATUS-005 when main exited 65, what `main-message-first` breaks;
  WPC-STATUS-004 for a failed `wait`); a conformant result passes;
- every StatusAuxFaults case has clauses the spec knows, for each aux container
  it runs with;
- LayoutSwitchKeepsInFlightPods' `probe_until`, whose wait is bounded by the
  config-propagation timeout WPC-LAYOUT-003 names, fails as an assertion naming
  WPC-LAYOUT-003 when no probe pod shows the new layout (what `keep-old-layout`
  does), and returns the pod that does;
- HandshakeMarker, when its reader was killed with main's container (exit 137)
  while the last marker it saw was RUNNING, fails naming WPC-HANDSHAKE-003 if
  that RUNNING went unrewritten for longer than the heartbeat plus tolerance up
  to main's end (what `slow-heartbeat` does: main presumes the supervisor dead);
  a fresh heartbeat, a terminal last marker or a reader that died otherwise
  leave it to the test's other checks.
"""

from __future__ import annotations

import datetime
from types import SimpleNamespace
from typing import Any

import pytest

from conformance import spec as specs
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import failed_clauses
from conformance.report.items.outcomes import failure_kind
from conformance.tests.handshake import test_handshake_marker as handshake
from conformance.tests.layout import (
    test_layout_switch_keeps_in_flight_pods as layout_switch,
)
from conformance.tests.status import test_status_aux_faults as aux_faults


def terminated(code: int, message: str = "", reason: str = "Error") -> Any:
    return SimpleNamespace(exit_code=code, message=message, reason=reason)


def result(node: tuple[str, str], **states: Any) -> tuple[dict[str, Any], Any]:
    phase, message = node
    workflow = {
        "metadata": {"name": "wf"},
        "status": {"nodes": {"wf": {"phase": phase, "message": message}}},
    }
    return workflow, states


def named(exc: BaseException) -> list[str]:
    """The clauses the negative controls would credit for this failure."""
    kind = failure_kind(when="call", exc=exc)
    assert kind is FailureKind.ASSERTION
    return failed_clauses(kind, exc)


FAILED = aux_faults.DEAD_SUPERVISOR_CASES["failed"]
SUPERVISOR_FAILED = terminated(64, "boom")
SUPERVISOR_OUTCOME = ("Error", "supervisor: Error (exit code 64): boom")


def test_a_conformant_failed_marker_case_passes():
    aux_faults.check_node(
        "failed",
        FAILED,
        result(
            SUPERVISOR_OUTCOME,
            main=terminated(65, "supervisor reported pre-main failure: boom"),
            supervisor=SUPERVISOR_FAILED,
        ),
        aux="supervisor",
    )


def test_main_exiting_1_not_65_names_the_handshake_clause():
    with pytest.raises(AssertionError) as caught:
        aux_faults.check_node(
            "failed",
            FAILED,
            result(
                SUPERVISOR_OUTCOME,
                main=terminated(1, "supervisor reported pre-main failure: boom"),
                supervisor=SUPERVISOR_FAILED,
            ),
            aux="supervisor",
        )
    assert named(caught.value) == ["WPC-HANDSHAKE-006"]


def test_main_s_message_on_the_node_after_exit_65_names_the_status_clause():
    main = terminated(65, "supervisor reported pre-main failure: boom")
    with pytest.raises(AssertionError) as caught:
        aux_faults.check_node(
            "failed",
            FAILED,
            result(
                ("Failed", "main: Error (exit code 65): " + main.message),
                main=main,
                supervisor=SUPERVISOR_FAILED,
            ),
            aux="supervisor",
        )
    assert named(caught.value) == ["WPC-STATUS-005"]


@pytest.mark.parametrize(
    ("aux", "clause"), [("wait", "WPC-STATUS-004"), ("supervisor", "WPC-STATUS-005")]
)
def test_a_failed_aux_after_main_succeeded_names_the_layout_s_clause(aux, clause):
    with pytest.raises(AssertionError) as caught:
        aux_faults.check_node(
            "aux-fails",
            aux_faults.HEALTHY_AUX_CASES["aux-fails"],
            result(("Succeeded", ""), main=terminated(0), **{aux: terminated(5, "x")}),
            aux=aux,
        )
    assert named(caught.value) == [clause]


def test_every_case_names_clauses_the_spec_knows():
    known = {r.id for r in specs.load().requirements if r.active}
    cases = {**aux_faults.HEALTHY_AUX_CASES, **aux_faults.DEAD_SUPERVISOR_CASES}
    for name, case in cases.items():
        healthy = name in aux_faults.HEALTHY_AUX_CASES
        auxes = ["wait", "supervisor"] if healthy else ["supervisor"]
        clauses = {case.exit_clause, *(case.node_clause(a) for a in auxes)}
        assert clauses <= known, f"{name}: {clauses - known}"


class Probes:
    """Workflows whose probe pods are all built in `layout`."""

    def __init__(self, layout: str) -> None:
        inits = [{"name": "init"}] if layout == "legacy" else []
        aux = "wait" if layout == "legacy" else "supervisor"
        self.pod = {
            "metadata": {"name": "probe-pod"},
            "spec": {"initContainers": inits, "containers": [{"name": aux}]},
        }
        self.namespace = "ns"
        self.submitted: list[str] = []
        self.clients = SimpleNamespace(
            core=SimpleNamespace(
                list_namespaced_pod=lambda *_, **__: SimpleNamespace(items=[self.pod])
            ),
            api=SimpleNamespace(sanitize_for_serialization=lambda pod: pod),
        )

    def submit(self, body: dict[str, Any]) -> str:
        self.submitted.append(f"probe-{len(self.submitted)}")
        return self.submitted[-1]

    def get(self, name: str) -> dict[str, Any]:
        return {"status": {"phase": "Succeeded"}}


def test_no_pod_in_the_new_layout_within_the_limit_names_the_layout_clause():
    probes = Probes("legacy")
    limit = SimpleNamespace(config_propagation=0.0, poll_interval=0.0)
    with pytest.raises(AssertionError) as caught:
        layout_switch.probe_until("initless", wfs=probes, probe={}, timeouts=limit)
    assert named(caught.value) == ["WPC-LAYOUT-003"]
    assert "not within its limit" in str(caught.value)
    assert probes.submitted == ["probe-0"]


def test_a_probe_pod_in_the_new_layout_is_returned():
    probes = Probes("initless")
    # No sleeping: the first check submits, the second sees the pod's layout.
    budget = SimpleNamespace(config_propagation=60.0, poll_interval=0.0)
    found = layout_switch.probe_until("initless", wfs=probes, probe={}, timeouts=budget)
    assert (found, probes.submitted) == ("probe-pod", ["probe-0"])


STARTED = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.UTC)


def record(seconds: float, content: str) -> str:
    at = STARTED + datetime.timedelta(seconds=seconds)
    stamp = at.strftime("%Y-%m-%d %H:%M:%S.%f000 +0000")
    return f"@rec 7 {stamp}|template \n{content}x\n@end\n"


def marker_scene(main_ended_after: float) -> Any:
    main = SimpleNamespace(
        name="main",
        state=SimpleNamespace(
            terminated=SimpleNamespace(
                finished_at=STARTED + datetime.timedelta(seconds=main_ended_after),
                exit_code=65,
                message="supervisor presumed dead: no status update within 30s",
            )
        ),
    )
    pod = SimpleNamespace(
        metadata=SimpleNamespace(name="p"),
        status=SimpleNamespace(init_container_statuses=[], container_statuses=[main]),
    )
    return SimpleNamespace(
        clients=SimpleNamespace(
            core=SimpleNamespace(read_namespaced_pod=lambda *_: pod)
        ),
        namespace="ns",
        timeouts=Timeouts(),
    )


def test_a_stale_running_marker_until_main_ended_names_the_heartbeat_clause():
    result = executing.Result(returncode=137, output=record(0.5, "RUNNING\n"))
    with pytest.raises(AssertionError) as caught:
        handshake._heartbeat_until_main_ended(marker_scene(31), "p", result)
    assert named(caught.value) == ["WPC-HANDSHAKE-003"]


@pytest.mark.parametrize(
    ("returncode", "output", "ended"),
    [
        (137, record(0.5, "RUNNING\n") + record(5.0, "RUNNING\n"), 9),  # fresh
        (137, record(0.5, "RUNNING\n") + record(2.0, "READY\n"), 40),  # terminal
        (None, record(0.5, "RUNNING\n"), 40),  # the exec broke, main ran on
        (137, "", 40),  # nothing seen
    ],
)
def test_nothing_else_is_judged_after_the_reader_died(returncode, output, ended):
    result = executing.Result(returncode=returncode, output=output)
    handshake._heartbeat_until_main_ended(marker_scene(ended), "p", result)
