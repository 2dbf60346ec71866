"""Pod probes: the targeted state before a fault, and proof of the fault after it.

`main_is_running` is the usual vulnerable-state probe: the step's `main`
container runs *and* its user command has started (it touched
`/tmp/started`, the suite's held-command handshake), so a fault that lands
now lands while user code runs.

Each probe states its condition, its named timeout and what it waits for; the
polling, finding the step's live pod and remembering the pod a fault is about
are `chaos.pod.polling`.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client.exceptions import ApiException

from chaos import sessions
from chaos.activities import activity
from chaos.errors import Final
from chaos.errors import Unexpected
from chaos.errors import Unsupported
from chaos.pod import absence
from chaos.pod import finding
from chaos.pod import polling
from conformance import contract
from conformance.errors import HarnessError
from conformance.harness import NotYet
from conformance.harness.inspecting import executing
from conformance.harness.workload import pods as pod_readers

__all__ = [
    "container_is_terminated",
    "executor_volume_is",
    "init_is_running",
    "main_is_running",
    "main_waits_for_ready",
    "pod_is_gone",
    "pod_is_held_by_finalizer",
    "status_marker_is_stale",
    "status_marker_never_appears",
    "step_has_new_pod",
    "supervisor_is_in_premain",
    "workflow_has_running_pods",
]


@activity
def main_is_running(
    step: str,
    workflow: str = "main",
    container: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the step's `main` runs its user command; return the pod's name."""
    session = sessions.current(configuration)

    def running(pod: Any) -> Any | NotYet:
        seen = finding.state(pod, container)
        return (
            pod
            if seen == "running"
            else NotYet(f"{pod.metadata.name}: {container} {seen}")
        )

    pod = polling.until_pod(
        session,
        workflow,
        step,
        running,
        timeout=session.timeouts.user_command_started,
        describe=f"step {step}'s {container} to run",
    )
    name = pod.metadata.name
    executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    ).wait_started(name)
    polling.vulnerable(
        session,
        "main_is_running",
        step,
        pod,
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
    name, uid = polling.remembered(session, step)

    def gone() -> bool | NotYet:
        pod = polling.read(session, name)
        if pod is None or pod.metadata.uid != uid:
            return True
        return NotYet(f"{name} ({uid}) still exists, phase {pod.status.phase}")

    sessions.poll(
        session, gone, timeout=timeout, describe=f"pod {name} ({uid}) to be gone"
    )
    session.injected("pod_is_gone", f"pod {name} ({uid}) no longer exists")
    return True


@activity
def step_has_new_pod(
    step: str,
    workflow: str = "main",
    orphaned: bool = False,
    configuration: dict[str, Any] | None = None,
) -> str:
    """A pod of the step other than the deleted one exists; return its name.

    A retry attempt's pod or a re-created pod: a different uid. `orphaned`: the old
    pod's node is gone, so its containers never report and a controller may hold its
    status finalizer until its backstop (WPC-FINALIZER-005: upstream v4.1.2 waits 2 min
    from the pod's last condition transition, `workflow/controller/pod/controller.go`
    commonPodEvent) before the node ends and its retry is created; the wait then
    allows `status_finalizer_removed` instead of `pod_deleted_reported`.
    """
    session = sessions.current(configuration)
    _, old_uid = polling.remembered(session, step)

    def fresh() -> str | NotYet:
        pods = finding.step_pods(session, workflow, step)
        new = [p for p in pods if p.metadata.uid != old_uid]
        if new:
            return str(new[-1].metadata.name)
        return NotYet(
            f"pods of {step}: {[(p.metadata.name, p.metadata.uid) for p in pods]}"
        )

    return sessions.poll(
        session,
        fresh,
        timeout=session.timeouts.pod_created
        + (
            session.timeouts.status_finalizer_removed
            if orphaned
            else session.timeouts.pod_deleted_reported
        ),
        describe=f"a new pod for step {step}",
    )


@activity
def container_is_terminated(
    step: str,
    container: str,
    exit_code: int | None = None,
    reason: str | None = None,
    workflow: str = "main",
    injection: bool = False,
    message: str | None = None,
    message_prefix: str | None = None,
    timeout_seconds: float | None = None,
    message_contains: str | None = None,
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the container of the step's pod terminated; check code and reason.

    The termination message is compared exactly (`message`), as a prefix, or
    by a part of it (`message_contains`: the runtime's words around a path are
    its own). With `injection: true` the termination is the fault's proof (an
    OOM kill, a killed `wait`) and is recorded as such.
    """
    session = sessions.current(configuration)

    def ended() -> Any | NotYet:
        pods = finding.step_pods(session, workflow, step)
        if not pods:
            return NotYet(f"no pod for step {step}")
        seen = finding.state(pods[-1], container)
        return (pods[-1], seen) if seen.startswith("terminated") else NotYet(seen)

    pod, seen = sessions.poll(
        session,
        ended,
        timeout=timeout_seconds * session.settings.timeout_scale
        if timeout_seconds
        else session.timeouts.workflow_completed,
        describe=f"{container} of step {step} to terminate",
    )
    _, got_reason, got_code = seen.split(" ", 2)
    wrong = (exit_code is not None and int(got_code) != exit_code) or (
        reason is not None and got_reason != reason
    )
    said = finding.termination_message(pod, container)
    wrong = (
        wrong
        or (message is not None and said != message)
        or (message_prefix is not None and not said.startswith(message_prefix))
        or (message_contains is not None and message_contains not in said)
    )
    if wrong:
        raise Unexpected(
            f"{pod.metadata.name}/{container}: {seen} {said!r}, expected "
            f"message {message or message_prefix or message_contains or 'any'!r}, "
            f"reason {reason or 'any'}, "
            f"exit code {exit_code if exit_code is not None else 'any'}"
        )
    if injection:
        session.injected(
            "container_is_terminated",
            f"{pod.metadata.name}/{container}: {seen}" + (f" {said!r}" if said else ""),
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
    name, uid = polling.remembered(session, step)

    def held() -> Any | NotYet:
        pod = polling.read(session, name)
        if pod is None:
            raise Final(
                f"pod {name} ({uid}) is gone: the status finalizer did not "
                "hold it while the controller was down"
            )
        if pod.metadata.uid != uid:
            raise Final(f"pod {name} was replaced ({pod.metadata.uid})")
        states = {
            s.name: finding.state(pod, s.name)
            for s in pod.status.container_statuses or []
        }
        if contract.STATUS_FINALIZER not in (pod.metadata.finalizers or []):
            raise Final(
                f"pod {name} ({uid}) lost the status finalizer while the controller "
                f"was down (finalizers {pod.metadata.finalizers}): nothing holds it"
            )
        done = bool(states) and all(v.startswith("terminated") for v in states.values())
        if pod.metadata.deletion_timestamp and done:
            return pod
        return NotYet(f"{name}: finalizers {pod.metadata.finalizers}, {states}")

    pod = sessions.poll(
        session,
        held,
        timeout=session.timeouts.workflow_completed,
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
    from conformance.harness.workload.workflows import workflow_pods

    def running() -> list[Any] | NotYet:
        pods = workflow_pods(
            session.clients, session.namespace, session.workflow(workflow)
        )
        up = [p for p in pods if finding.state(p, "main") == "running"]
        if len(up) >= count:
            return up
        return NotYet(f"{len(up)} of {len(pods)} pods have main running")

    up = sessions.poll(
        session,
        running,
        timeout=session.timeouts.user_command_started,
        describe=f"{count} pods of the workflow to run main",
    )
    session.was_vulnerable(
        "workflow_has_running_pods",
        f"{len(up)} pods in flight: "
        + ", ".join(f"{p.metadata.name} ({p.metadata.uid})" for p in up),
    )
    return len(up)


@activity
def supervisor_is_in_premain(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Wait until the init-less status marker reads RUNNING and main waits on it.

    Read from `main` (it shares /var/run/argo): the supervisor is in its pre-main
    work and the user command has not started.
    """
    session = sessions.current(configuration)
    shell = executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    )

    def premain(pod: Any) -> tuple[Any, str] | NotYet:
        if finding.state(pod, "main") != "running":
            return NotYet(f"{pod.metadata.name}: main {finding.state(pod, 'main')}")
        marker = shell.sh(
            pod.metadata.name, f"cat {contract.STATUS_MARKER} 2>&1", check=False
        )
        started = shell.run(pod.metadata.name, ["test", "-e", executing.STARTED])
        if marker.startswith("RUNNING") and started.returncode != 0:
            return pod, marker.strip()
        return NotYet(f"{pod.metadata.name}: marker {marker.strip()!r}")

    pod, marker = polling.until_pod(
        session,
        workflow,
        step,
        premain,
        timeout=session.timeouts.user_command_started,
        describe=f"step {step}'s supervisor to be in pre-main",
    )
    text = (
        f"{pod.metadata.name}: status marker {marker}, "
        "main waiting, user command not started"
    )
    return polling.vulnerable(session, "supervisor_is_in_premain", step, pod, text)


@activity
def main_waits_for_ready(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """The step's pod is an init-less handshake pod: main waits for READY.

    The vulnerable state of a pre-main fault built into the workload (an
    artifact that cannot be fetched): `main` must not run the user command.
    """
    session = sessions.current(configuration)

    pod = polling.created_pod(session, workflow, step)
    containers = {c.name: c for c in pod.spec.containers}
    env = {e.name: e.value for e in containers["main"].env or []}
    if "supervisor" not in containers or env.get("ARGO_WAIT_FOR_READY") != "true":
        raise Unexpected(
            f"{pod.metadata.name}: not an init-less handshake pod "
            f"(containers {sorted(containers)}, ARGO_WAIT_FOR_READY "
            f"{env.get('ARGO_WAIT_FOR_READY')!r})"
        )
    text = f"{pod.metadata.name}: main waits for READY behind supervisor"
    return polling.vulnerable(session, "main_waits_for_ready", step, pod, text)


@activity
def init_is_running(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Wait until the step's legacy pod is Pending with `init` running (pre-main)."""
    session = sessions.current(configuration)

    def in_init(pod: Any) -> Any | NotYet:
        seen = finding.state(pod, "init")
        if pod.status.phase == "Pending" and seen == "running":
            return pod
        return NotYet(f"{pod.metadata.name}: {pod.status.phase}, init {seen}")

    pod = polling.until_pod(
        session,
        workflow,
        step,
        in_init,
        timeout=session.timeouts.user_command_started,
        describe=f"step {step}'s init to run",
    )
    text = f"{pod.metadata.name} ({pod.metadata.uid}): Pending, init running"
    return polling.vulnerable(session, "init_is_running", step, pod, text)


@activity
def status_marker_is_stale(
    step: str,
    min_age_seconds: float = 15.0,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the init-less status marker has not changed for `min_age_seconds`.

    Read from `main` (marker mtime against the node's clock): with a 5 s
    heartbeat, 15 s without a change proves the supervisor stopped beating,
    before the 30 s rule makes `main` give up.
    """
    session = sessions.current(configuration)
    name, _ = polling.remembered(session, step)
    shell = executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    )
    script = f"echo $(( $(date +%s) - $(stat -c %Y {contract.STATUS_MARKER}) )) $(head -1 {contract.STATUS_MARKER})"

    def stale() -> str | NotYet:
        said = shell.sh(name, script, check=False).strip()
        age, _, token = said.partition(" ")
        if age.isdigit() and int(age) >= min_age_seconds and token == "RUNNING":
            return said
        return NotYet(f"marker age and token: {said!r}")

    said = sessions.poll(
        session,
        stale,
        timeout=min_age_seconds + session.timeouts.status_marker_stale,
        describe=f"the status marker of {name} to be {min_age_seconds:g} s old",
    )
    age, _, token = said.partition(" ")
    text = f"{name}: status marker {token} unchanged for {age} s (heartbeat every 5 s)"
    session.injected("status_marker_is_stale", text)
    return text


@activity
def executor_volume_is(
    step: str,
    image: str = "tools",
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """The step's pod gets argoexec from the profile's `image` (a role: `tools`).

    Proof that a configured executor image landed: the pod's `argoexec-bin`
    image volume references it (WPC-INITLESS-003). A pod that references
    another image means the implementation does not take its executor image
    from the `executor` configuration field: the fault cannot be injected
    through the profile, so `Unsupported`, not a failure.
    """
    session = sessions.current(configuration)
    want = session.profile.images[image]

    pod = polling.created_pod(session, workflow, step)
    volumes = {v.name: v for v in pod.spec.volumes or []}
    volume = volumes.get(contract.EXECUTOR_BIN_VOLUME)
    source = volume.image if volume is not None else None
    got = source.reference if source is not None else None
    if source is None or got != want:
        raise Unsupported(
            f"{pod.metadata.name}: volume {contract.EXECUTOR_BIN_VOLUME} references "
            f"{got!r}, not the configured executor image {want!r}: the implementation "
            "does not take its executor image from the `executor` field"
        )
    images = {c.name: c.image for c in pod.spec.containers}
    text = (
        f"{pod.metadata.name}: volume {contract.EXECUTOR_BIN_VOLUME} references "
        f"{got} (pull policy {source.pull_policy}); supervisor image "
        f"{images.get('supervisor')}"
    )
    session.injected("executor_volume_is", text)
    return text


@activity
def status_marker_never_appears(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Read the status marker from `main` until `main` gives up; it must never exist.

    The proof of a marker-never-written fault (WPC-HANDSHAKE-007): every read,
    stamped with the node's clock, finds no marker, the last one close to
    `main`'s `finishedAt`, and `main` did not give up before the 30 s rule.
    """
    session = sessions.current(configuration)
    timeouts = session.timeouts
    shell = executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=timeouts
    )
    reads: list[absence.Read] = []

    def given_up(pod: Any) -> Any | NotYet:
        seen = finding.state(pod, "main")
        if seen.startswith("terminated"):
            return pod
        if seen != "running":
            return NotYet(f"{pod.metadata.name}: main {seen}")
        try:
            said = shell.sh(pod.metadata.name, absence.SCRIPT, check=False)
        except (ApiException, HarnessError) as exc:
            return NotYet(f"{pod.metadata.name}: exec refused ({exc}); main ending?")
        read = absence.parse(said)
        if read is None:
            return NotYet(f"{pod.metadata.name}: unreadable answer {said!r}")
        absence.refuse_present(read, pod.metadata.name)
        reads.append(read)
        return NotYet(f"{pod.metadata.name}: marker absent ({len(reads)} reads)")

    pod = polling.until_pod(
        session,
        workflow,
        step,
        given_up,
        timeout=timeouts.user_command_started + timeouts.status_marker_appears,
        describe=f"main of step {step} to give up on the status marker",
    )
    done = pod_readers.status_of(pod, "main").state.terminated
    text = absence.judge(
        reads,
        pod=pod.metadata.name,
        started=int(done.started_at.timestamp()),
        finished=int(done.finished_at.timestamp()),
        limit=timeouts.status_marker_appears,
        slack=timeouts.timing_tolerance + 2 * timeouts.poll_interval,
    )
    session.injected("status_marker_never_appears", text)
    return text
