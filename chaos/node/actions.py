"""Node actions: restart a node component, signal a container's processes."""

from __future__ import annotations

import logging
import signal as signals
from typing import Any

from chaos import sessions
from chaos.activities import activity
from chaos.errors import Unsupported
from chaos.pod import finding
from clusters import faults
from clusters.base import NodeFaults

logger = logging.getLogger(__name__)

__all__ = ["restart_node_component", "signal_step_container"]


def _faults(session: sessions.Session) -> NodeFaults:
    found = faults.of(session.settings.provider)
    if found is None:
        raise Unsupported(
            f"the {session.settings.provider} provider cannot inject node faults"
        )
    return found


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
