"""EmissarySignals: signals reach the user command, through PID 1 and through the signal file.

We test these aspects, in one workflow of two parallel steps whose mains
touch `/tmp/armed` once their signal trap is installed:

- `term`: the suite runs `kill -TERM 1` in `main` (PID 1 is the emissary); the
  command's trap writes `got TERM` to its termination log and exits 42, and
  that decides the container's exit (42, message `got TERM`) and the node
  (`Failed`, `main: <Reason> (exit code 42): got TERM`) (WPC-EMISSARY-004);
- `usr1`: the suite writes `10` to `/var/run/argo/ctr/main/signal` from the
  `helper` sidecar; the command receives SIGUSR1, sees the file removed within
  5 s, reports `got USR1; signal file removed` and exits 0 (WPC-EMISSARY-005).

Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import NotYet
from conformance.harness import executing
from conformance.harness import kube
from conformance.harness import until
from conformance.harness.timeouts import Timeouts
from conformance.harness.workflows import step_pods

STEPS = ("term", "usr1")


def _exec(
    kube_clients: kube.Clients,
    namespace: str,
    pod: str,
    container: str,
    script: str,
    timeouts: Timeouts,
    *,
    check: bool = True,
) -> str:
    result = executing.run(
        kube_clients,
        namespace=namespace,
        pod=pod,
        container=container,
        command=["sh", "-c", script],
        timeout=timeouts.api_call,
    )
    assert result.returncode == 0 or not check, (
        f"exec {script!r} in {pod}/{container}: {result}"
    )
    return result.output


def _running(pod: Any, container: str) -> bool:
    return any(
        s.name == container and s.state and s.state.running
        for s in (pod.status.container_statuses or [])
    )


def _terminated(pod: Any, container: str) -> Any:
    for status in pod.status.container_statuses or []:
        if status.name == container and status.state.terminated:
            return status.state.terminated
    raise AssertionError(f"{pod.metadata.name}/{container} has not terminated")


@pytest.mark.conformance(
    short_name="EmissarySignals", clauses=["WPC-EMISSARY-004", "WPC-EMISSARY-005"]
)
def test_sigterm_to_pid_one_and_the_signal_file_reach_the_user_command(
    workflows, manifest, observations, kube_clients, namespace, timeouts
):
    name = workflows.submit(manifest())

    def armed() -> dict[str, Any] | NotYet:
        pods = step_pods(kube_clients, namespace, name)
        seen = {}
        for step in STEPS:
            pod = pods.get(step)
            if pod is None or not _running(pod, "main"):
                return NotYet(f"main of step {step} is not running yet")
            seen[step] = _exec(
                kube_clients,
                namespace,
                pod.metadata.name,
                "main",
                "test -f /tmp/armed && echo armed || echo waiting",
                timeouts,
            ).strip()
        return pods if set(seen.values()) == {"armed"} else NotYet(seen)

    pods = until(
        armed,
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe="both mains to install their signal traps",
    )
    # PID 1 may take the container down before the exec reports back.
    _exec(
        kube_clients,
        namespace,
        pods["term"].metadata.name,
        "main",
        "kill -TERM 1",
        timeouts,
        check=False,
    )
    _exec(
        kube_clients,
        namespace,
        pods["usr1"].metadata.name,
        "helper",
        "printf 10 > /var/run/argo/ctr/main/signal",
        timeouts,
    )

    workflow = workflows.wait_completed(name)
    nodes = {
        n["displayName"]: n
        for n in workflow["status"]["nodes"].values()
        if n["type"] == "Pod"
    }
    for step in STEPS:
        observations.record(f"nodes.{step}.phase", nodes[step]["phase"])
        observations.record(f"nodes.{step}.message", nodes[step].get("message", ""))
    pods = step_pods(kube_clients, namespace, name)

    term = _terminated(pods["term"], "main")
    assert (term.exit_code, term.message) == (42, "got TERM")
    assert (nodes["term"]["phase"], nodes["term"].get("message")) == (
        "Failed",
        f"main: {term.reason} (exit code 42): got TERM",
    )

    usr1 = _terminated(pods["usr1"], "main")
    assert (usr1.exit_code, usr1.message) == (0, "got USR1; signal file removed")
    assert nodes["usr1"]["phase"] == "Succeeded"
