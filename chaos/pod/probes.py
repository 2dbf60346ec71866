"""Pod probes: the targeted state before a fault, and proof of the fault after it.

`main_is_running` is the usual vulnerable-state probe: the step's `main`
container runs *and* its user command has started (it touched
`/tmp/started`, the suite's held-command handshake), so a fault that lands
now lands while user code runs.
"""

from __future__ import annotations

from typing import Any

from chaos import sessions
from chaos.activities import activity
from chaos.errors import Unexpected
from chaos.pod import finding
from conformance.harness import NotYet
from conformance.harness import executing
from conformance.harness import until

__all__ = [
    "container_is_terminated",
    "main_is_running",
    "pod_is_gone",
    "pod_is_held_by_finalizer",
    "step_has_new_pod",
    "workflow_has_running_pods",
]


def _one(session: sessions.Session, workflow: str, step: str) -> Any | NotYet:
    found = finding.step_pods(session, workflow, step)
    live = [p for p in found if not p.metadata.deletion_timestamp]
    return live[-1] if live else NotYet(f"no live pod for step {step} yet")


@activity
def main_is_running(
    step: str,
    workflow: str = "main",
    container: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the step's `main` runs its user command; return the pod's name."""
    session = sessions.current(configuration)

    def running() -> Any | NotYet:
        pod = _one(session, workflow, step)
        if isinstance(pod, NotYet):
            return pod
        seen = finding.state(pod, container)
        return (
            pod
            if seen == "running"
            else NotYet(f"{pod.metadata.name}: {container} {seen}")
        )

    pod = until(
        running,
        timeout=session.timeouts.user_command_started,
        interval=session.timeouts.poll_interval,
        describe=f"step {step}'s {container} to run",
    )
    name = pod.metadata.name
    executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    ).wait_started(name)
    session.memo[f"pod:{step}"] = (name, pod.metadata.uid)
    session.was_vulnerable(
        "main_is_running",
        f"{name} ({pod.metadata.uid}): {container} running, user command started",
    )
    return str(name)


@activity
def pod_is_gone(
    step: str,
    timeout_seconds: float | None = None,
    configuration: dict[str, Any] | None = None,
) -> bool:
    """The pod the last pod fault hit (by uid) no longer exists."""
    session = sessions.current(configuration)
    timeout = (
        timeout_seconds * session.settings.timeout_scale
        if timeout_seconds
        else session.timeouts.pod_created
    )
    name, uid = session.memo[f"pod:{step}"]

    def gone() -> bool | NotYet:
        from kubernetes.client.exceptions import ApiException

        try:
            pod = session.clients.core.read_namespaced_pod(name, session.namespace)
        except ApiException as exc:
            if exc.status == 404:
                return True
            raise
        if pod.metadata.uid != uid:
            return True
        return NotYet(f"{name} ({uid}) still exists, phase {pod.status.phase}")

    until(
        gone,
        timeout=timeout,
        interval=session.timeouts.poll_interval,
        describe=f"pod {name} ({uid}) to be gone",
    )
    session.injected("pod_is_gone", f"pod {name} ({uid}) no longer exists")
    return True


@activity
def step_has_new_pod(
    step: str,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """A pod of the step other than the deleted one exists; return its name.

    A retry attempt's pod or a re-created pod: a different uid.
    """
    session = sessions.current(configuration)
    _, old_uid = session.memo[f"pod:{step}"]

    def fresh() -> str | NotYet:
        pods = finding.step_pods(session, workflow, step)
        new = [p for p in pods if p.metadata.uid != old_uid]
        if new:
            return str(new[-1].metadata.name)
        return NotYet(
            f"pods of {step}: {[(p.metadata.name, p.metadata.uid) for p in pods]}"
        )

    found: str = until(
        fresh,
        timeout=session.timeouts.pod_created + session.timeouts.pod_deleted_reported,
        interval=session.timeouts.poll_interval,
        describe=f"a new pod for step {step}",
    )
    return found


@activity
def container_is_terminated(
    step: str,
    container: str,
    exit_code: int | None = None,
    reason: str | None = None,
    workflow: str = "main",
    injection: bool = False,
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the container of the step's pod terminated; check code and reason.

    With `injection: true` the termination is the fault's proof (an OOM kill,
    a killed `wait`) and is recorded as such.
    """
    session = sessions.current(configuration)

    def ended() -> Any | NotYet:
        pods = finding.step_pods(session, workflow, step)
        if not pods:
            return NotYet(f"no pod for step {step}")
        seen = finding.state(pods[-1], container)
        return (pods[-1], seen) if seen.startswith("terminated") else NotYet(seen)

    pod, seen = until(
        ended,
        timeout=session.timeouts.workflow_completed,
        interval=session.timeouts.poll_interval,
        describe=f"{container} of step {step} to terminate",
    )
    _, got_reason, got_code = seen.split(" ", 2)
    wrong = (exit_code is not None and int(got_code) != exit_code) or (
        reason is not None and got_reason != reason
    )
    if wrong:
        raise Unexpected(
            f"{pod.metadata.name}/{container}: {seen}, expected "
            f"reason {reason or 'any'} exit code {exit_code if exit_code is not None else 'any'}"
        )
    if injection:
        session.injected(
            "container_is_terminated", f"{pod.metadata.name}/{container}: {seen}"
        )
    return str(seen)


@activity
def pod_is_held_by_finalizer(
    step: str, configuration: dict[str, Any] | None = None
) -> str:
    """The deleted pod still exists, terminating, held by the status finalizer.

    Waits until its containers have all terminated, so the status the
    controller must read later is there to read.
    """
    session = sessions.current(configuration)
    name, uid = session.memo[f"pod:{step}"]

    def held() -> Any | NotYet:
        from kubernetes.client.exceptions import ApiException

        try:
            pod = session.clients.core.read_namespaced_pod(name, session.namespace)
        except ApiException as exc:
            if exc.status == 404:
                raise Unexpected(
                    f"pod {name} ({uid}) is gone: the status finalizer did not "
                    "hold it while the controller was down"
                ) from exc
            raise
        if pod.metadata.uid != uid:
            raise Unexpected(f"pod {name} was replaced ({pod.metadata.uid})")
        states = {
            s.name: finding.state(pod, s.name)
            for s in pod.status.container_statuses or []
        }
        done = bool(states) and all(v.startswith("terminated") for v in states.values())
        if pod.metadata.deletion_timestamp and done:
            return pod
        return NotYet(f"{name}: finalizers {pod.metadata.finalizers}, {states}")

    pod = until(
        held,
        timeout=session.timeouts.workflow_completed,
        interval=session.timeouts.poll_interval,
        describe=f"pod {name} to terminate while its finalizer holds it",
    )
    text = (
        f"{name} ({uid}) deleted at {pod.metadata.deletion_timestamp} and still "
        f"there with finalizers {pod.metadata.finalizers}"
    )
    session.injected("pod_is_held_by_finalizer", text)
    return text


@activity
def workflow_has_running_pods(
    count: int,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> int:
    """Wait until `count` pods of the workflow have `main` running (in-flight pods)."""
    session = sessions.current(configuration)
    from conformance.harness.workflows import workflow_pods

    def running() -> list[Any] | NotYet:
        pods = workflow_pods(
            session.clients, session.namespace, session.workflow(workflow)
        )
        up = [p for p in pods if finding.state(p, "main") == "running"]
        if len(up) >= count:
            return up
        return NotYet(f"{len(up)} of {len(pods)} pods have main running")

    up = until(
        running,
        timeout=session.timeouts.user_command_started,
        interval=session.timeouts.poll_interval,
        describe=f"{count} pods of the workflow to run main",
    )
    session.was_vulnerable(
        "workflow_has_running_pods",
        f"{len(up)} pods in flight: "
        + ", ".join(f"{p.metadata.name} ({p.metadata.uid})" for p in up),
    )
    return len(up)
