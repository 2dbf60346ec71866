"""KillEmissaryCommand: `<emissary> kill <signal> 1` signals a wrapped container.

We test these aspects: while `main`'s user command runs (it traps SIGTERM and
has written /tmp/started), the suite executes the emissary's kill command
inside `main` (`/var/run/argo/argoexec kill 15 1` in legacy,
`/argo-bin/bin/argoexec kill 15 1` in initless); PID 1 forwards SIGTERM to the
user command, which records it in its termination message and exits 143
(WPC-KILL-007).

Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.workload.workflows import workflow_pods

EMISSARY = {
    contract.LEGACY: "/var/run/argo/argoexec",
    contract.INITLESS: "/argo-bin/bin/argoexec",
}
STARTED = ["test", "-f", "/tmp/started"]


def _started_pod(shell: Any, workflow: str) -> str | NotYet:
    from kubernetes.client.exceptions import ApiException

    pods = workflow_pods(shell.clients, shell.namespace, workflow)
    running = [
        p.metadata.name
        for p in pods
        for s in p.status.container_statuses or []
        if s.name == "main" and s.state.running
    ]
    if not running:
        return NotYet(
            f"no running main container among {[p.metadata.name for p in pods]}"
        )
    try:
        result = shell.run(running[0], STARTED)
    except ApiException as exc:
        return NotYet(f"exec refused: HTTP {exc.status} {exc.reason}")
    return running[0] if result.returncode == 0 else NotYet(f"not started: {result}")


@pytest.mark.conformance(short_name="KillEmissaryCommand", clauses=["WPC-KILL-007"])
def test_emissary_kill_command_delivers_the_signal_to_the_user_command(
    workflows, manifest, kube_clients, namespace, layout, timeouts, shell
):
    name = workflows.submit(manifest())
    pod = until(
        lambda: _started_pod(shell, name),
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe=f"the user command of workflow {name} to start",
    )

    killed = shell.run(pod, [EMISSARY[layout.layout], "kill", "15", "1"])
    # The kill command's own exit code says little: once the signal ended
    # main, the runtime kills whatever else ran in the container, itself too.

    workflow = workflows.wait_completed(name)
    main = next(
        s
        for s in kube_clients.core.read_namespaced_pod(
            pod, namespace
        ).status.container_statuses
        if s.name == "main"
    )
    terminated = main.state.terminated
    assert terminated is not None, f"main has not terminated: {main.state}"
    assert (terminated.exit_code, (terminated.message or "").strip()) == (
        143,
        "TERM",
    ), (
        f"WPC-KILL-007: after {killed}: main exit code {terminated.exit_code}, termination message "
        f"{terminated.message!r}; workflow {workflow['status'].get('message')!r}"
    )
