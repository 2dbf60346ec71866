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
from conformance.harness import until
from conformance.harness.workload import pods
from conformance.harness.workload.workflows import step_pods

STEPS = ("term", "usr1")


@pytest.mark.conformance(
    short_name="EmissarySignals", clauses=["WPC-EMISSARY-004", "WPC-EMISSARY-005"]
)
def test_sigterm_to_pid_one_and_the_signal_file_reach_the_user_command(
    workflows, manifest, observations, kube_clients, namespace, timeouts, shell
):
    name = workflows.submit(manifest())

    def armed() -> dict[str, Any] | NotYet:
        found = step_pods(kube_clients, namespace, name)
        seen = {}
        for step in STEPS:
            pod = found.get(step)
            if pod is None or not pods.running(pod, "main"):
                return NotYet(f"main of step {step} is not running yet")
            seen[step] = shell.sh(
                pod.metadata.name, "test -f /tmp/armed && echo armed || echo waiting"
            ).strip()
        return found if set(seen.values()) == {"armed"} else NotYet(seen)

    armed_pods = until(
        armed,
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe="both mains to install their signal traps",
    )
    # PID 1 may take the container down before the exec reports back.
    shell.sh(armed_pods["term"].metadata.name, "kill -TERM 1", check=False)
    shell.sh(
        armed_pods["usr1"].metadata.name,
        "printf 10 > /var/run/argo/ctr/main/signal",
        container="helper",
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
    by_step = step_pods(kube_clients, namespace, name)

    term = pods.terminated(by_step["term"], "main")
    assert (term.exit_code, term.message) == (42, "got TERM"), (
        "WPC-EMISSARY-004: SIGTERM to PID 1 must reach the user command, whose "
        f"exit decides main's: got exit {term.exit_code}, message {term.message!r}"
    )
    assert (nodes["term"]["phase"], nodes["term"].get("message")) == (
        "Failed",
        f"main: {term.reason} (exit code 42): got TERM",
    ), "WPC-EMISSARY-004: the node reports the user command's exit"

    usr1 = pods.terminated(by_step["usr1"], "main")
    assert (usr1.exit_code, usr1.message) == (0, "got USR1; signal file removed"), (
        "WPC-EMISSARY-005: the signal file must deliver its signal to the user "
        f"command and be removed: got exit {usr1.exit_code}, message {usr1.message!r}"
    )
    assert nodes["usr1"]["phase"] == "Succeeded", (
        f"WPC-EMISSARY-005: node usr1 is {nodes['usr1']['phase']}, not Succeeded"
    )
