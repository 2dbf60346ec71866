"""StatusAuxFaults: a failing or dead aux container, and whose outcome names the node.

`podSpecPatch` replaces the aux container (`wait`, `supervisor`) with a
script from the tools image; each script waits for `main`'s `exitcode` file
and then exits non-zero with a message of its own. Every case is its own
workflow, all submitted at once. We test these aspects:

- legacy: `main` exits 0 and `wait` exits 5 -> `Error`,
  `wait: <Reason> (exit code 5): aux failed` (WPC-STATUS-004); `main` exits 3
  and `wait` exits 7 -> `Failed`, `main: <Reason> (exit code 3)`: main outranks
  a failed `wait` (WPC-STATUS-003);
- initless, the same two cases with `supervisor` (WPC-STATUS-005,
  WPC-STATUS-003: the supervisor outranks `main` only when `main` exited 65);
- initless, the marker says `FAILED\\nboom`: `main` exits 65 without running
  its command, with `supervisor reported pre-main failure: boom`
  (WPC-HANDSHAKE-006), and the node is `Error` with the supervisor's outcome
  `supervisor: <Reason> (exit code 64): boom` (WPC-STATUS-005);
- initless, no marker ever: `main` exits 65 with `supervisor presumed dead:
  status marker never appeared within 30s`, not earlier than 30 s after it
  started (WPC-HANDSHAKE-007);
- initless, `RUNNING` written once: `main` exits 65 with `supervisor presumed
  dead: no status update within 30s`, not earlier than 30 s after the
  marker's modification time (WPC-HANDSHAKE-008).

A fake supervisor that plays a healthy one writes `/var/run/argo/template`
from its `ARGO_TEMPLATE` (WPC-INITLESS clauses put it there) before `READY`,
as the real one does. The user command of the pre-main cases would create `/var/run/argo/user-ran`;
the fake supervisor appends `(the user command ran)` to its message if it
finds it, which the exact node message would show. Lower bounds need no
tolerance: container timestamps are truncated to whole seconds, so a
conformant exit can never look early. A fake aux container never writes a
WorkflowTaskResult; the controller completes the node anyway because the aux
container failed (Argo's documented behaviour, see STATUS informative text).
Reaction times (WPC-HANDSHAKE-010, a SHOULD) are checked by a separate test.
"""

from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest

from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import Workflows
from conformance.harness.workload.workflows import workflow_pods

STATUS = "/var/run/argo/status"
NEVER_APPEARED = "supervisor presumed dead: status marker never appeared within 30s"
NO_UPDATE = "supervisor presumed dead: no status update within 30s"
DEAD_AFTER = 30
"""WPC-HANDSHAKE-007/008: seconds without a (fresh) marker before main gives up."""
USER_COMMAND = "touch /var/run/argo/user-ran; exit 42"


def write(body: str) -> str:
    """Shell: replace the marker atomically with the printf format `body`."""
    return f"printf '{body}' > {STATUS}.tmp && mv {STATUS}.tmp {STATUS}; "


def finish(code: int, message: str) -> str:
    """Shell: wait for main's exitcode file, then exit `code` with `message`."""
    return (
        "i=0; while [ ! -e /var/run/argo/ctr/main/exitcode ] && [ $i -lt 1800 ]; "
        "do sleep 0.1; i=$((i+1)); done; "
        f'm="{message}"; '
        '[ -e /var/run/argo/user-ran ] && m="$m (the user command ran)"; '
        f"printf '%s' \"$m\" > /dev/termination-log; exit {code}"
    )


@dataclass(frozen=True)
class Case:
    """main's command, the fake aux script, main's expected exit, and their clauses.

    In HEALTHY_AUX_CASES a fake supervisor first does what a healthy one does
    (template, RUNNING, READY); a fake `wait` has nothing to do before main.
    Each failed check names the clause that sets what it expected (issue 11: a
    negative control counts only an assertion naming its clause).
    """

    main: str
    aux: str
    main_exit: int
    phase: str
    exit_clause: str = field(repr=False)
    """The clause that sets main's exit code in this case."""
    node_clauses: Mapping[str, str] = field(repr=False)
    """Aux container (`wait`, `supervisor`) -> the clause setting the node's outcome.

    Both out of the repr: pytest's assertion rewriting prints a Case met in a
    failed expression, and every clause ID in the failure counts as named.
    """

    def node_clause(self, aux: str) -> str:
        """The clause that ranks `aux` against main for this case's node outcome."""
        return self.node_clauses[aux]


TEMPLATE = "printf '%s' \"$ARGO_TEMPLATE\" > /var/run/argo/template; "
"""Shell: what a healthy supervisor writes before READY (its ARGO_TEMPLATE)."""
READY = write("RUNNING\\n") + TEMPLATE + write("READY\\n")
EXITED_65 = {"supervisor": "WPC-STATUS-005"}
"""main exited 65 and the supervisor failed: the supervisor's outcome names the node."""
HEALTHY_AUX_CASES = {
    "aux-fails": Case(
        "exit 0",
        finish(5, "aux failed"),
        0,
        "Error",
        "WPC-EMISSARY-002",
        {"wait": "WPC-STATUS-004", "supervisor": "WPC-STATUS-005"},
    ),
    "main-fails": Case(
        "exit 3",
        finish(7, "aux failed"),
        3,
        "Failed",
        "WPC-EMISSARY-002",
        {"wait": "WPC-STATUS-003", "supervisor": "WPC-STATUS-003"},
    ),
}
DEAD_SUPERVISOR_CASES = {
    "failed": Case(
        USER_COMMAND,
        write("FAILED\\nboom") + finish(64, "boom"),
        65,
        "Error",
        "WPC-HANDSHAKE-006",
        EXITED_65,
    ),
    "never": Case(
        USER_COMMAND,
        finish(3, "never wrote the marker"),
        65,
        "Error",
        "WPC-HANDSHAKE-007",
        EXITED_65,
    ),
    "stale": Case(
        USER_COMMAND,
        write("RUNNING\\n")
        + f"t=$(stat -c %y {STATUS}); "
        + finish(3, "RUNNING at $t"),
        65,
        "Error",
        "WPC-HANDSHAKE-008",
        EXITED_65,
    ),
}


def _workflow(base: dict[str, Any], *, aux: str, case: Case) -> dict[str, Any]:
    healthy = aux == "supervisor" and case in HEALTHY_AUX_CASES.values()
    body = copy.deepcopy(base)
    template = body["spec"]["templates"][0]
    template["container"]["args"] = [case.main]
    patch = {
        "terminationGracePeriodSeconds": 5,
        "containers": [
            {
                "name": aux,
                "image": template["container"]["image"],
                "command": ["sh", "-c"],
                "args": [(READY if healthy else "") + case.aux],
            }
        ],
    }
    template["podSpecPatch"] = json.dumps(patch)
    return body


def stat_time(text: str) -> datetime.datetime:
    """Parse busybox `stat -c %y` output (nanoseconds cut to microseconds)."""
    day, clock, zone = text.strip().split(" ")
    whole, _, fraction = clock.partition(".")
    return datetime.datetime.strptime(
        f"{day} {whole}.{(fraction or '0')[:6]} {zone}", "%Y-%m-%d %H:%M:%S.%f %z"
    )


def run_cases(
    workflows: Workflows,
    kube_clients: kube.Clients,
    namespace: str,
    base: dict[str, Any],
    *,
    aux: str,
    cases: dict[str, Case],
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Submit every case at once; return case -> (workflow, terminated states)."""
    names = {
        case: workflows.submit(_workflow(base, aux=aux, case=c))
        for case, c in cases.items()
    }
    done = {}
    for case, name in names.items():
        workflow = workflows.wait_completed(name)
        pods = workflow_pods(kube_clients, namespace, name)
        assert len(pods) == 1, f"{case}: expected one pod, found {len(pods)}"
        states = {s.name: s.state.terminated for s in pods[0].status.container_statuses}
        done[case] = (workflow, states)
    return done


def _message(container: str, term: Any) -> str:
    text = f"{container}: {term.reason} (exit code {term.exit_code})"
    return f"{text}: {term.message}" if term.message else text


def check_node(
    case: str, spec: Case, result: tuple[dict[str, Any], dict[str, Any]], *, aux: str
) -> None:
    """main's exit, and the node phase and message the ranking rules give.

    Each failure names the case's clause for what it checked: main's exit, or
    the node outcome `aux` and main rank into.
    """
    workflow, states = result
    main = states["main"]
    assert main is not None, f"{spec.exit_clause}: {case}: main did not terminate"
    assert main.exit_code == spec.main_exit, (
        f"{spec.exit_clause}: {case}: main should exit {spec.main_exit}, "
        f"terminated as {main}"
    )
    decisive = "main" if spec.phase == "Failed" else aux
    node = workflow["status"]["nodes"][workflow["metadata"]["name"]]
    assert (node["phase"], node.get("message")) == (
        spec.phase,
        _message(decisive, states[decisive]),
    ), f"{spec.node_clause(aux)}: {case}: node phase and message"


@pytest.mark.conformance(
    short_name="StatusAuxFaults", clauses=["WPC-STATUS-003", "WPC-STATUS-004"]
)
def test_a_failed_wait_container_makes_the_node_error_unless_main_failed(
    workflows, manifest, kube_clients, namespace
):
    results = run_cases(
        workflows,
        kube_clients,
        namespace,
        manifest(),
        aux="wait",
        cases=HEALTHY_AUX_CASES,
    )
    for case, spec in HEALTHY_AUX_CASES.items():
        check_node(case, spec, results[case], aux="wait")


@pytest.mark.conformance(
    short_name="StatusAuxFaults",
    clauses=[
        "WPC-HANDSHAKE-006",
        "WPC-HANDSHAKE-007",
        "WPC-HANDSHAKE-008",
        "WPC-STATUS-003",
        "WPC-STATUS-005",
    ],
)
def test_a_failed_or_dead_supervisor_is_reported_with_the_right_precedence(
    workflows, manifest, kube_clients, namespace
):
    cases = {**HEALTHY_AUX_CASES, **DEAD_SUPERVISOR_CASES}
    results = run_cases(
        workflows, kube_clients, namespace, manifest(), aux="supervisor", cases=cases
    )
    for case, spec in cases.items():
        check_node(case, spec, results[case], aux="supervisor")

    def main_of(case: str) -> Any:
        return results[case][1]["main"]

    assert main_of("failed").message == "supervisor reported pre-main failure: boom", (
        "WPC-HANDSHAKE-006: main's termination message on FAILED"
    )
    assert results["failed"][1]["supervisor"].message == "boom", (
        "WPC-STATUS-005: the supervisor's own message, which the node carries"
    )

    never = main_of("never")
    assert never.message == NEVER_APPEARED, (
        "WPC-HANDSHAKE-007: main's termination message when no marker appeared"
    )
    waited = (never.finished_at - never.started_at).total_seconds()
    assert waited >= DEAD_AFTER, (
        f"WPC-HANDSHAKE-007: main gave up {waited:.0f} s after it started"
    )

    stale = main_of("stale")
    assert stale.message == NO_UPDATE, (
        "WPC-HANDSHAKE-008: main's termination message on a stale marker"
    )
    sup = results["stale"][1]["supervisor"].message
    marker_time = stat_time(sup.removeprefix("RUNNING at "))
    earliest = (marker_time + datetime.timedelta(seconds=DEAD_AFTER)).replace(
        microsecond=0
    )
    assert stale.finished_at >= earliest, (
        f"WPC-HANDSHAKE-008: main gave up at {stale.finished_at}, the marker was written at {marker_time}"
    )
