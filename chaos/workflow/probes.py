"""Workflow probes: the workflow completed, its nodes are as the spec says.

A node must have the exact phase, message and outputs the spec requires
after the fault.

Each waits (bounded by a named timeout) and raises `Unexpected` with the
workflow's nodes when the expectation fails, so the report says what was
seen instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

from chaos import sessions
from chaos.activities import activity
from chaos.controller import pods as controller_pods
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.history.records import load_written
from chaos.pod.finding import RETRY_SUFFIX
from chaos.workflow import recorded
from chaos.workflow import suspends
from conformance.harness import NotYet

__all__ = [
    "node_is",
    "node_is_recorded",
    "pod_nodes_are",
    "step_had_one_pod",
    "step_is_suspended",
    "suspend_ended_while_down",
    "suspend_resumed_on_time",
    "workflow_is_completed",
    "workflow_is_running",
]


T = TypeVar("T")


def _nodes(workflow: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return dict((workflow.get("status") or {}).get("nodes") or {})


def summary(workflow: Mapping[str, Any]) -> str:
    """Phase, message and every node's phase and message, for evidence."""
    status = workflow.get("status") or {}
    nodes = [
        f"{n.get('displayName')}={n.get('phase')}"
        + (f" {n.get('message')!r}" if n.get("message") else "")
        for n in _nodes(workflow).values()
    ]
    return (
        f"workflow {workflow['metadata']['name']} {status.get('phase')} "
        f"{status.get('message', '')!r}; nodes: {', '.join(nodes)}"
    )


def _until_recorded(
    session: sessions.Session,
    name: str,
    check: Callable[[dict[str, Any]], T | None],
    *,
    timeout: float,
    describe: str,
) -> T:
    """`check` of Workflow `name` as the controller wrote it, read until it finds something.

    The workflow probes' one wait: `check` returns what it looked for, or None
    while the Workflow does not show it yet; on expiry the wait names
    `describe` and the last Workflow read (`summary`).
    """
    ops = session.workflow_ops()

    def read() -> T | NotYet:
        current = ops.get(name)
        found = check(current)
        return NotYet(summary(current)) if found is None else found

    return sessions.poll(session, read, timeout=timeout, describe=describe)


@activity
def workflow_is_completed(
    phase: str = "Succeeded",
    workflow: str = "main",
    timeout_seconds: float | None = None,
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the workflow completes; Unexpected unless it ends in `phase`.

    `phase` may name alternatives, `Failed|Error`, where the spec allows both.
    """
    session = sessions.current(configuration)
    name = session.workflow(workflow)
    done = session.workflow_ops().wait_completed(
        name,
        timeout=timeout_seconds * session.settings.timeout_scale
        if timeout_seconds
        else None,
    )
    got = (done.get("status") or {}).get("phase")
    if got not in phase.split("|"):
        raise Unexpected(f"expected {phase}: {summary(done)}")
    return str(got)


def pod_nodes_of(workflow: Mapping[str, Any], step: str) -> list[dict[str, Any]]:
    """The Pod nodes of `step` (retry attempts included), oldest first."""
    found = [
        n
        for n in _nodes(workflow).values()
        if n.get("type") == "Pod"
        and RETRY_SUFFIX.sub("", str(n.get("displayName") or "")) == step
    ]
    return sorted(found, key=lambda n: str(n.get("startedAt") or ""))


@activity
def node_is(
    step: str,
    phase: str,
    message: str | None = None,
    message_prefix: str | None = None,
    exit_code: str | None = None,
    parameters: dict[str, str] | None = None,
    attempt: int = 0,
    attempts: int | None = None,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """The step's Pod node (attempt `attempt`, in start order) has exactly this state.

    `phase` may name alternatives (`Failed|Error`) where the fault makes the
    outcome a race the spec allows either way;
    `message` is compared exactly, `message_prefix` as a prefix (`a|b`: either);
    `parameters`
    are its output parameters' values; `attempts` is how many Pod nodes the
    step must have had (retries). Reads the workflow as it is now.
    """
    session = sessions.current(configuration)
    current = session.workflow_ops().get(session.workflow(workflow))
    nodes = pod_nodes_of(current, step)
    if attempts is not None and len(nodes) != attempts:
        raise Unexpected(
            f"step {step}: expected {attempts} pod node(s), found {len(nodes)}: "
            + summary(current)
        )
    if len(nodes) <= attempt:
        raise Unexpected(f"step {step} has no attempt {attempt}: {summary(current)}")
    node = nodes[attempt]
    outputs = node.get("outputs") or {}
    got_params = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}
    got_message = str(node.get("message") or "")
    problems = []
    if node.get("phase") not in phase.split("|"):
        problems.append(f"phase {node.get('phase')} (expected {phase})")
    if message is not None and got_message != message:
        problems.append(f"message {got_message!r} (expected {message!r})")
    if message_prefix is not None and not got_message.startswith(
        tuple(message_prefix.split("|"))
    ):
        problems.append(
            f"message {got_message!r} (expected to start {message_prefix!r})"
        )
    if exit_code is not None and outputs.get("exitCode") != exit_code:
        problems.append(
            f"exitCode {outputs.get('exitCode')!r} (expected {exit_code!r})"
        )
    for key, value in (parameters or {}).items():
        if got_params.get(key) != value:
            problems.append(
                f"parameter {key}={got_params.get(key)!r} (expected {value!r})"
            )
    if problems:
        raise Unexpected(f"node {node.get('name')}: {'; '.join(problems)}")
    return f"{node.get('name')}: {phase} {got_message!r}"


@activity
def node_is_recorded(
    step: str,
    phase: str = "Running",
    attempt: int = 0,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the Workflow's status records the step's Pod node in `phase`.

    What the controller has written, not what the pod shows: a fault aimed at a
    `Running` node (WPC-STATUS-007) must not land while the controller still
    records it `Pending`, where the spec asks for another pod instead
    (WPC-STATUS-008). A pod can run for seconds before its controller writes
    that (upstream v4.1.2 reconciles a starting workflow about every 10 s).
    """
    session = sessions.current(configuration)

    def recorded_in_phase(current: dict[str, Any]) -> dict[str, Any] | None:
        nodes = pod_nodes_of(current, step)
        if len(nodes) > attempt and nodes[attempt].get("phase") == phase:
            return nodes[attempt]
        return None

    node = _until_recorded(
        session,
        session.workflow(workflow),
        recorded_in_phase,
        timeout=session.timeouts.node_phase_reported,
        describe=f"the Workflow to record step {step} (attempt {attempt}) {phase}",
    )
    text = f"{node.get('name')}: recorded {phase}"
    session.was_vulnerable("node_is_recorded", text)
    return text


@activity
def pod_nodes_are(
    phase: str,
    count: int,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> int:
    """Exactly `count` Pod nodes, every one in `phase` (no node lost, none doubled)."""
    session = sessions.current(configuration)
    current = session.workflow_ops().get(session.workflow(workflow))
    pods = [n for n in _nodes(current).values() if n.get("type") == "Pod"]
    wrong = [n for n in pods if n.get("phase") != phase]
    if len(pods) != count or wrong:
        raise Unexpected(f"expected {count} Pod nodes {phase}: {summary(current)}")
    return len(pods)


@activity
def workflow_is_running(
    succeeded_nodes: int = 1,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the workflow runs with at least `succeeded_nodes` Pod nodes done.

    The vulnerable state of a fault aimed at a workflow in mid-flight.
    """
    session = sessions.current(configuration)
    name = session.workflow(workflow)

    def midway(current: dict[str, Any]) -> dict[str, Any] | None:
        done = [
            n
            for n in _nodes(current).values()
            if n.get("type") == "Pod" and n.get("phase") == "Succeeded"
        ]
        running = (current.get("status") or {}).get("phase") == "Running"
        return current if running and len(done) >= succeeded_nodes else None

    current = _until_recorded(
        session,
        name,
        midway,
        timeout=session.timeouts.workflow_completed,
        describe=f"workflow {name} to run with {succeeded_nodes} node(s) done",
    )
    text = summary(current)
    session.was_vulnerable("workflow_is_running", text)
    return text


def _suspended(step: str) -> str:
    """Memo key: (startedAt in unix seconds, duration in seconds) of a Suspend node."""
    return f"suspend:{step}"


@activity
def step_is_suspended(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Wait until the step's Suspend node is Running; note its startedAt and duration.

    The vulnerable state of a fault aimed at a suspended workflow: the
    controller has started the suspend's clock and must remember it.
    """
    session = sessions.current(configuration)
    name = session.workflow(workflow)

    def suspended(
        current: dict[str, Any],
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        node = suspends.suspend_node(current, step)
        if node is None or node.get("phase") != "Running" or not node.get("startedAt"):
            return None
        return current, node

    current, node = _until_recorded(
        session,
        name,
        suspended,
        timeout=session.timeouts.workflow_completed,
        describe=f"step {step} of workflow {name} to be suspended",
    )
    duration = suspends.duration_of(current, node)
    session.memo[_suspended(step)] = (suspends.epoch(node["startedAt"]), duration)
    text = (
        f"{node.get('id')} ({step}): Suspend node Running since {node['startedAt']}, "
        f"duration {duration:g} s"
    )
    session.was_vulnerable("step_is_suspended", text)
    return text


@activity
def suspend_ended_while_down(
    step: str,
    margin_seconds: float = 5.0,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """Wait until the step's suspend duration has ended (plus a margin) with no controller.

    The fault's point: the moment the duration ends passes while no controller
    pod exists and the node is still Running, so the controller must notice on
    start-up that it has passed. A node that changed, or a controller pod
    that exists, means the fault missed that moment: `Inconclusive`.
    """
    session = sessions.current(configuration)
    ops = session.workflow_ops()
    name = session.workflow(workflow)
    started, duration = session.memo[_suspended(step)]
    target = started + duration + margin_seconds

    def ended() -> dict[str, Any] | NotYet:
        node = suspends.suspend_node(ops.get(name), step) or {}
        if node.get("phase") != "Running":
            raise Inconclusive(
                f"step {step} is {node.get('phase')} before its duration ended, "
                "with the controller stopped"
            )
        left = target - time.time()
        if left > 0:
            return NotYet(f"{left:.0f} s until the duration ends (+{margin_seconds:g})")
        pods = controller_pods.listed(session)
        if pods:
            raise Inconclusive(
                f"the suspend of {step} ended while a controller pod existed: "
                + controller_pods.describe(pods)
            )
        return node

    node = sessions.poll(
        session,
        ended,
        timeout=max(0.0, target - time.time()) + session.timeouts.api_call,
        describe=f"the suspend of step {step} to end with the controller down",
    )
    text = (
        f"{node.get('id')} ({step}): still Running {margin_seconds:g} s after its "
        f"{duration:g} s duration ended, and no controller pod in "
        f"{session.instance.namespace}"
    )
    session.injected("suspend_ended_while_down", text)
    return text


@activity
def suspend_resumed_on_time(
    step: str,
    within_seconds: float = 15.0,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> str:
    """The step's Suspend node resumed after its duration and soon after the restart.

    Compares the node's `startedAt` (unchanged since `step_is_suspended`) and
    `finishedAt` with the `startTime` of the controller pod that replaced the
    stopped one (`chaos.workflow.suspends.judge_resume`). `within_seconds` is
    scaled and gets the timing tolerance.
    """
    session = sessions.current(configuration)
    current = session.workflow_ops().get(session.workflow(workflow))
    node = suspends.suspend_node(current, step)
    if node is None or node.get("phase") != "Succeeded" or not node.get("finishedAt"):
        raise Unexpected(f"step {step} did not resume: {summary(current)}")
    started_before, duration = session.memo[_suspended(step)]
    before = session.memo.get(controller_pods.BEFORE, {})
    fresh = [
        p.status.start_time.timestamp()
        for p in controller_pods.listed(session)
        if p.metadata.uid not in before and p.status.start_time is not None
    ]
    if not fresh:
        raise Inconclusive(
            "no controller pod started after the stop: "
            + controller_pods.describe(controller_pods.listed(session))
        )
    resume = suspends.Resume(
        started=suspends.epoch(node["startedAt"]),
        finished=suspends.epoch(node["finishedAt"]),
        duration=duration,
        controller_started=min(fresh),
    )
    return suspends.judge_resume(
        resume,
        node=f"{node.get('id')} ({step})",
        started_before=started_before,
        within=within_seconds * session.settings.timeout_scale
        + session.timeouts.timing_tolerance,
    )


@activity
def step_had_one_pod(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """The step has one Pod node, and the recorded history saw exactly one pod for it.

    Over the whole run so far, not only at one moment: a step run a second
    time after its first pod finished (an exit hook run again by a restarted
    controller) breaks WPC-RECOVERY-002 without two live pods at once. Run it
    once the workflow has completed.
    """
    session = sessions.current(configuration)
    name = session.workflow(workflow)
    current = session.workflow_ops().get(name)
    nodes = pod_nodes_of(current, step)
    if len(nodes) != 1:
        raise Unexpected(
            f"step {step}: expected one Pod node, found {len(nodes)}: "
            + summary(current)
        )
    pods = recorded.step_pods(
        load_written(session.history_path), workflow=name, step=step
    )
    return recorded.judge_one_pod(
        pods, step=step, node_ids={str(n.get("id")) for n in nodes}
    )
