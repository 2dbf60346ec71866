"""Node actions: restart a node component, signal a container's processes."""

from __future__ import annotations

import logging
import signal as signals
import threading
from typing import Any

from chaos import requirements
from chaos import sessions
from chaos.activities import activity
from chaos.errors import Unexpected
from chaos.errors import Unsupported
from chaos.pod import finding
from clusters import faults
from clusters.base import NodeFaults

logger = logging.getLogger(__name__)

__all__ = [
    "cut_controller_off",
    "cut_step_pod_off",
    "lift_faults",
    "restart_node_component",
    "signal_step_container",
    "wait_for_fault_end",
]

CUT = "controller cut off from the API server"


def _faults(session: sessions.Session) -> NodeFaults:
    provider = session.settings.provider
    return requirements.capability(
        faults.of(provider), provider=provider, cannot="inject node faults"
    )


@activity
def restart_node_component(
    component: str,
    down_seconds: float = 0.0,
    configuration: dict[str, Any] | None = None,
) -> str:
    """Stop `component` (kubelet, containerd), keep it down, start it as it was.

    The fault is verified by the process itself: the old pid is gone and a
    new one passed the component's health probe.
    """
    session = sessions.current(configuration)
    label = f"{component} restarted"
    session.fault_began(label)
    done = _faults(session).restart_component(
        session.settings.cluster, component, down_seconds=down_seconds
    )
    session.fault_ended(label)
    if done.new_pid == done.old_pid:
        raise Unsupported(f"{component} kept pid {done.old_pid} across the restart")
    text = (
        f"{component} pid {done.old_pid} stopped at +{done.stopped_at - session.started:.1f}s, "
        f"pid {done.new_pid} healthy at +{done.healthy_at - session.started:.1f}s"
    )
    session.injected("restart_node_component", text)
    return text


@activity
def signal_step_container(
    step: str,
    container: str,
    signal: str,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> list[int]:
    """Send `signal` (KILL, STOP, CONT, ...) to every process of a step's container."""
    session = sessions.current(configuration)
    pods = finding.step_pods(session, workflow, step)
    if not pods:
        raise Unsupported(f"step {step} has no pod")
    pod = pods[-1]
    number = int(getattr(signals, f"SIG{signal}"))
    pids = _faults(session).signal_container(
        session.settings.cluster, finding.container_id(pod, container), number
    )
    label = f"SIG{signal} {container}"
    if signal == "STOP":
        session.fault_began(
            label,
            restore=lambda: _faults(session).signal_container(
                session.settings.cluster,
                finding.container_id(pod, container),
                int(signals.SIGCONT),
            ),
        )
    elif signal == "CONT":
        session.fault_ended(f"SIGSTOP {container}")
    else:
        session.fault_began(label)
        session.fault_ended(label)
    logger.info(
        "[%s] SIG%s sent to %s/%s (pids %s).",
        session.experiment,
        signal,
        pod.metadata.name,
        container,
        pids,
    )
    return pids


@activity
def cut_controller_off(
    seconds: float = 20.0, configuration: dict[str, Any] | None = None
) -> str:
    """Reject the controller pod's connections to the API server for `seconds`.

    Returns at once; a timer lifts the cut (`wait_for_fault_end` waits for it,
    and the rollbacks lift it too if the run stops early). The injection is
    verified from inside the controller's network: a connection refused.
    """
    session = sessions.current(configuration)
    from chaos.controller import pods as controller_pods

    running = [p for p in controller_pods.listed(session) if controller_pods.ready(p)]
    if not running:
        raise Unsupported("no running controller pod to cut off")
    pod = running[0]
    container = pod.spec.containers[0].name
    evidence, lift = _faults(session).cut_api_access(
        session.settings.cluster, str(pod.metadata.uid)
    )

    def end() -> None:
        lift()
        session.fault_ended(CUT)

    session.fault_began(CUT, restore=end)
    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()
    session.memo[CUT] = timer
    text = f"{pod.metadata.name}/{container} cut off for {seconds:g} s; {evidence}"
    session.injected("cut_controller_off", text)
    return text


@activity
def wait_for_fault_end(configuration: dict[str, Any] | None = None) -> None:
    """Wait until a timed fault (`cut_controller_off`) has been lifted."""
    session = sessions.current(configuration)
    timer = session.memo.get(CUT)
    if timer is not None:
        timer.join(session.timeouts.controller_ready)
        if timer.is_alive():
            raise Unexpected("the timed fault did not end in time")


@activity
def lift_faults(configuration: dict[str, Any] | None = None) -> None:
    """Rollback: lift every fault still in force (idempotent)."""
    session = sessions.current(configuration)
    for label, undo in list(session.restorers.items()):
        undo()
        session.fault_ended(label)


CUT_POD = "pod cut off from its services"


@activity
def cut_step_pod_off(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> str:
    """Reject the step's pod connections to anything but the API server.

    What the pod sees when its artifact repository is down. Stays in force
    until `lift_faults` (a rollback) or the pod's end.
    """
    session = sessions.current(configuration)
    pods = finding.step_pods(session, workflow, step)
    if not pods:
        raise Unsupported(f"step {step} has no pod")
    pod = pods[-1]
    evidence, lift = _faults(session).cut_egress(
        session.settings.cluster, str(pod.metadata.uid)
    )
    session.fault_began(CUT_POD, restore=lift)
    text = f"{pod.metadata.name}: {evidence}"
    session.injected("cut_step_pod_off", text)
    return text
