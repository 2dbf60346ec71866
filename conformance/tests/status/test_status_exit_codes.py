"""StatusExitCodes: how a command's exit becomes the container's exit code and the node's status.

We test these aspects, with one small workflow per case, all submitted at once:

- the container exits with the user command's code (0, 1, 3, 255), and with
  128 + N when the command is killed by signal N (143 for SIGTERM, 137 for
  SIGKILL) (WPC-EMISSARY-002);
- a command that cannot be found makes the container exit 64 with a
  termination message starting `failed to find name in PATH: `
  (WPC-EMISSARY-003);
- a termination message the command wrote survives its exit, and ends up in
  the node message `main: Error (exit code 3): custom reason`
  (WPC-EMISSARY-008);
- exit 0 gives a `Succeeded` node with an empty message and exit code "0"
  (WPC-STATUS-002); exit N gives a `Failed` node with
  `main: <Reason> (exit code N)[: <msg>]` and exit code N (WPC-STATUS-003);
- a sidecar that exits 1 after main succeeded fails the node with
  `side: <Reason> (exit code 1)`, while one that is killed at the end of the
  pod leaves it `Succeeded` (WPC-STATUS-006);
- a failed workflow's message equals its root node's message, and a steps
  root names its failed child: `child '<node id>' failed` (WPC-STATUS-009).

`<Reason>` and `<msg>` are read from the pod's terminated container state, as
the clauses define them. Matrix: legacy and initless.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.harness.workload import pods

ARMED = "touch /shared/armed; "
WAIT_ARMED = (
    "i=0; while [ ! -e /shared/armed ] && [ $i -lt 600 ]; "
    "do sleep 0.1; i=$((i+1)); done; "
)
LOOP = "while true; do sleep 1 & wait $!; done"
SELF = "read -r pid _ < /proc/self/stat; "
"""The shell's own PID: Kubernetes turns `$$` in args into `$`, so `$$` cannot be used."""


@dataclass(frozen=True)
class Case:
    """One workflow: main's command, an optional sidecar, what the pod must show."""

    script: str | None
    exit_code: int
    phase: str
    command: tuple[str, ...] = ()
    sidecar: str | None = None
    message: str | None = None
    """main's exact termination message, when the case pins it."""
    message_prefix: str | None = None


CASES = {
    "exit-0": Case("exit 0", 0, "Succeeded"),
    "exit-1": Case("exit 1", 1, "Failed"),
    "exit-3-with-reason": Case(
        "printf 'custom reason' > /dev/termination-log; exit 3",
        3,
        "Failed",
        message="custom reason",
    ),
    "exit-255": Case("exit 255", 255, "Failed"),
    "sigterm": Case(SELF + "kill -TERM $pid", 143, "Failed"),
    "sigkill": Case(SELF + "kill -KILL $pid", 137, "Failed"),
    "not-found": Case(
        None,
        64,
        "Failed",
        command=("/no/such/binary",),
        message_prefix="failed to find name in PATH: ",
    ),
    "sidecar-exits-1": Case(
        WAIT_ARMED + "exit 0",
        0,
        "Failed",
        sidecar=ARMED + "trap 'exit 1' TERM; " + LOOP,
    ),
    "sidecar-killed": Case("exit 0", 0, "Succeeded", sidecar="sleep 3600"),
}


def _workflow(base: dict[str, Any], case: Case) -> dict[str, Any]:
    body = copy.deepcopy(base)
    template = body["spec"]["templates"][0]
    container = template["container"]
    if case.script is None:
        container["command"] = list(case.command)
        del container["args"]
    else:
        container["args"] = [case.script]
    if case.sidecar is not None:
        template["sidecars"] = [
            {
                "name": "side",
                "image": container["image"],
                "imagePullPolicy": "IfNotPresent",
                "command": ["sh", "-c", case.sidecar],
                "volumeMounts": container["volumeMounts"],
            }
        ]
    return body


def _container_message(name: str, term: Any) -> str:
    text = f"{name}: {term.reason} (exit code {term.exit_code})"
    return f"{text}: {term.message}" if term.message else text


def _check_case(case_name: str, case: Case, workflow: dict[str, Any], pod: Any) -> None:
    main = pods.terminated(pod, "main")
    where = f"case {case_name} ({workflow['metadata']['name']})"
    code_clause = "WPC-EMISSARY-003" if case.exit_code == 64 else "WPC-EMISSARY-002"
    assert main.exit_code == case.exit_code, (
        f"{code_clause}: {where}: main exited {main.exit_code}"
    )
    if case.message is not None:
        assert main.message == case.message, (
            f"WPC-EMISSARY-008: {where}: {main.message!r}"
        )
    if case.message_prefix is not None:
        assert (main.message or "").startswith(case.message_prefix), (
            f"WPC-EMISSARY-003: {where}: main's termination message {main.message!r}"
        )
    status = workflow["status"]
    node = status["nodes"][workflow["metadata"]["name"]]
    if case.phase == "Succeeded":
        expected = ""
    elif case.exit_code != 0:
        expected = _container_message("main", main)
    else:
        side = pods.terminated(pod, "side")
        assert side.exit_code == 1, (
            f"WPC-STATUS-006: {where}: sidecar exited {side.exit_code}"
        )
        expected = _container_message("side", side)
    observed = (node["phase"], node.get("message", ""), node["outputs"]["exitCode"])
    wanted = (case.phase, expected, str(case.exit_code))
    if case.sidecar is not None:
        clause = "WPC-STATUS-006"
    else:
        clause = "WPC-STATUS-002" if case.phase == "Succeeded" else "WPC-STATUS-003"
    assert observed == wanted, f"{clause}: {where}: node {observed}, expected {wanted}"
    assert status["phase"] == case.phase, (
        f"{clause}: {where}: workflow {status['phase']}"
    )
    if case.phase != "Succeeded":
        assert status.get("message") == node.get("message"), (
            f"WPC-STATUS-009: {where}: workflow message {status.get('message')!r}"
        )


@pytest.mark.conformance(
    short_name="StatusExitCodes",
    clauses=[
        "WPC-EMISSARY-002",
        "WPC-EMISSARY-003",
        "WPC-EMISSARY-008",
        "WPC-STATUS-002",
        "WPC-STATUS-003",
        "WPC-STATUS-006",
        "WPC-STATUS-009",
    ],
)
def test_exit_codes_become_container_exit_codes_and_node_messages(
    workflows, manifest, observations, kube_clients, namespace
):
    base = manifest()
    names = {case: workflows.submit(_workflow(base, c)) for case, c in CASES.items()}
    steps = workflows.submit(manifest("status-exit-codes-steps.yaml"))

    failures = []
    for case_name, case in CASES.items():
        workflow = workflows.wait_completed(names[case_name])
        node = workflow["status"]["nodes"][names[case_name]]
        for key in ("phase", "message"):
            observations.record(f"cases.{case_name}.node.{key}", node.get(key, ""))
        observations.record(
            f"cases.{case_name}.workflow.phase", workflow["status"]["phase"]
        )
        pod = pods.only_pod(kube_clients, namespace, names[case_name])
        try:
            _check_case(case_name, case, workflow, pod)
        except AssertionError as exc:
            failures.append(str(exc))

    workflow = workflows.wait_completed(steps)
    status = workflow["status"]
    second = next(
        n for n in status["nodes"].values() if n.get("displayName") == "second"
    )
    observations.alias(second["id"], "<node:second>")
    observations.record("steps.workflow.message", status.get("message", ""))
    root = status["nodes"][steps]
    assert (status["phase"], root["phase"]) == ("Failed", "Failed"), (
        f"WPC-STATUS-009: steps workflow and root phases {status['phase']}, {root['phase']}"
    )
    assert root.get("message") == f"child '{second['id']}' failed", (
        f"WPC-STATUS-009: steps root message {root.get('message')!r}"
    )
    assert status.get("message") == root["message"], (
        f"WPC-STATUS-009: steps workflow message {status.get('message')!r}"
    )
    assert not failures, "\n".join(failures)
