"""KillShutdown: shutting a workflow down deletes pending pods and signals running ones.

We test these aspects, with pods whose grace period is 5 s:

- a workflow with a pod kept `Pending` by an unsatisfiable `nodeSelector` and a
  running pod whose `main` and sidecar trap SIGTERM; after `spec.shutdown:
  Terminate` the pending pod is deleted (WPC-KILL-008), both user commands of
  the running pod record SIGTERM in their termination messages
  (WPC-KILL-009), and the workflow completes;
- a `main` that ignores SIGTERM (it notes when the signal came) is killed
  (137) no earlier than the grace period and, by the suite's reading, no
  later than G + 10 s (as for sidecars, WPC-KILL-003) plus the timing
  tolerance after that SIGTERM (WPC-KILL-010, a SHOULD that Argo v4.1.x is
  expected to fail, OQ-15).

Matrix: legacy and initless.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import executing
from conformance.harness.workload import pods
from conformance.harness.workload.workflows import workflow_pods

GRACE = 5
SIGKILL_WINDOW = 10
"""As for sidecars (WPC-KILL-003): the SIGKILL comes within G + 10 s."""
READY = ["test", "-f", "/shared/main", "-a", "-f", "/shared/sidecar"]


def _wait_started(
    kube_clients: kube.Clients, namespace: str, workflow: str, timeouts: Timeouts
) -> str:
    from kubernetes.client.exceptions import ApiException

    def started() -> str | NotYet:
        for pod in workflow_pods(kube_clients, namespace, workflow):
            if any(
                s.name == "main" and s.state.running
                for s in pod.status.container_statuses or []
            ):
                try:
                    result = executing.run(
                        kube_clients,
                        namespace=namespace,
                        pod=pod.metadata.name,
                        container="main",
                        command=READY,
                        timeout=timeouts.api_call,
                    )
                except ApiException as exc:
                    return NotYet(f"exec refused: HTTP {exc.status} {exc.reason}")
                return pod.metadata.name if result.returncode == 0 else NotYet(result)
        return NotYet("no pod with a running main container yet")

    name: str = until(
        started,
        timeout=timeouts.user_command_started,
        interval=timeouts.poll_interval,
        describe=f"the user commands of workflow {workflow} to start",
    )
    return name


def _shutdown(kube_clients: kube.Clients, namespace: str, workflow: str) -> None:
    kube_clients.custom.patch_namespaced_custom_object(
        contract.WORKFLOW_GROUP,
        contract.WORKFLOW_VERSION,
        namespace,
        "workflows",
        workflow,
        {"spec": {"shutdown": "Terminate"}},
    )


def _container_terminated(
    kube_clients: kube.Clients, namespace: str, pod: str, container: str
) -> Any:
    return pods.terminated(
        kube_clients.core.read_namespaced_pod(pod, namespace), container
    )


@pytest.mark.conformance(
    short_name="KillShutdown", clauses=["WPC-KILL-008", "WPC-KILL-009"]
)
def test_shutdown_deletes_pending_pods_and_sends_sigterm_to_running_containers(
    workflows, manifest, kube_clients, namespace, timeouts
):
    name = workflows.submit(manifest())
    running = _wait_started(kube_clients, namespace, name, timeouts)
    pending = until(
        lambda: (
            [
                p.metadata.name
                for p in workflow_pods(kube_clients, namespace, name)
                if p.status.phase == "Pending"
            ]
            or NotYet("no pending pod yet")
        ),
        timeout=timeouts.pod_created,
        interval=timeouts.poll_interval,
        describe=f"the unschedulable pod of workflow {name}",
    )[0]

    _shutdown(kube_clients, namespace, name)
    workflow = workflows.wait_completed(name)

    # WPC-KILL-008: the pending pod was deleted (a finalizer may still hold it).
    def deleted() -> bool | NotYet:
        names = {
            p.metadata.name: p.metadata.deletion_timestamp
            for p in workflow_pods(kube_clients, namespace, name)
        }
        return pending not in names or names[pending] is not None or NotYet(names)

    until(
        deleted,
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        describe=f"the pending pod {pending} to be deleted",
    )
    # WPC-KILL-009: every running container's command received SIGTERM.
    for container in ("main", "sidecar"):
        terminated = until(
            functools.partial(
                _container_terminated, kube_clients, namespace, running, container
            ),
            timeout=GRACE + timeouts.cleanup,
            interval=timeouts.poll_interval,
            describe=f"{running}/{container} to terminate",
        )
        assert (terminated.message or "").split()[:1] == ["TERM"], (
            f"WPC-KILL-009: {running}/{container}: exit code {terminated.exit_code}, "
            f"termination message {terminated.message!r}"
        )
    assert workflow["status"]["phase"] in {"Failed", "Error"}


@pytest.mark.conformance(short_name="KillShutdown", clauses=["WPC-KILL-010"])
def test_shutdown_kills_a_main_container_that_ignores_sigterm_after_the_grace_period(
    workflows, manifest, kube_clients, namespace, timeouts
):
    name = workflows.submit(manifest("kill-shutdown-stubborn.yaml"))
    pod = _wait_started(kube_clients, namespace, name, timeouts)

    _shutdown(kube_clients, namespace, name)

    def sigterm_noted() -> int | NotYet:
        noted = executing.run(
            kube_clients,
            namespace=namespace,
            pod=pod,
            container="main",
            command=["head", "-n", "1", "/tmp/term"],
            timeout=timeouts.api_call,
        )
        text = noted.output.strip()
        return int(text) if noted.returncode == 0 and text.isdigit() else NotYet(noted)

    signalled = until(
        sigterm_noted,
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        describe=f"{pod}/main to receive SIGTERM after the shutdown",
    )
    terminated = until(
        lambda: _container_terminated(kube_clients, namespace, pod, "main"),
        timeout=GRACE + SIGKILL_WINDOW + timeouts.timing_tolerance,
        interval=timeouts.poll_interval,
        describe=f"{pod}/main, which ignores SIGTERM, to be killed",
    )
    waited = terminated.finished_at.timestamp() - signalled
    assert (terminated.exit_code, waited >= GRACE) == (137, True), (
        f"main: exit code {terminated.exit_code}, {waited:g} s after its SIGTERM"
    )
