"""Controller actions: stop, start, restart, kill, and switch the status finalizer.

Stop, start and restart go through the implementation profile's commands
(`stop`, `start`, `restart`, `setStatusFinalizer`), so they work for any
implementation. `kill_controller` deletes the controller's pods with grace
period 0, as a crashed node or an OOM kill would: whatever owns the pods
(a Deployment) brings a new one, exactly as it would after a crash.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from chaos import sessions
from chaos.activities import activity
from chaos.controller import pods as controller_pods
from chaos.errors import Unexpected
from conformance.harness import NotYet

logger = logging.getLogger(__name__)

STOPPED = "controller stopped"
KILLED = "controller killed"
RESTARTS = "controller restarts"

__all__ = [
    "kill_controller",
    "restart_controller",
    "restart_controller_repeatedly",
    "set_status_finalizer",
    "start_controller",
    "stop_controller",
]


@activity
def stop_controller(configuration: dict[str, Any] | None = None) -> list[str]:
    """Stop the instance's controller (profile `stop`); return the pods it had."""
    session = sessions.current(configuration)
    before = controller_pods.remember(session)
    controller = session.controller()
    session.fault_began(STOPPED, restore=controller.start)
    controller.stop()
    return [p.metadata.name for p in before]


@activity
def start_controller(configuration: dict[str, Any] | None = None) -> None:
    """Start the instance's controller (profile `start`); also a rollback."""
    session = sessions.current(configuration)
    session.controller().start()
    session.fault_ended(STOPPED)


@activity
def restart_controller(configuration: dict[str, Any] | None = None) -> None:
    """Restart the instance's controller once (profile `restart`)."""
    session = sessions.current(configuration)
    controller_pods.remember(session)
    session.fault_began(RESTARTS)
    session.controller().restart()
    session.fault_ended(RESTARTS)


@activity
def kill_controller(configuration: dict[str, Any] | None = None) -> list[str]:
    """Delete every controller pod of the instance with grace period 0."""
    session = sessions.current(configuration)
    before = controller_pods.remember(session)
    if not before:
        raise Unexpected(f"no controller pod to kill in {session.instance.namespace}")
    session.fault_began(KILLED)
    for pod in before:
        session.clients.core.delete_namespaced_pod(
            pod.metadata.name, session.instance.namespace, grace_period_seconds=0
        )
    return [p.metadata.name for p in before]


@activity
def restart_controller_repeatedly(
    times: int = 5,
    pause_seconds: float = 3.0,
    workflow: str = "main",
    configuration: dict[str, Any] | None = None,
) -> int:
    """Restart the controller `times` times, `pause_seconds` apart (a crash loop).

    Stops early once the workflow has completed: restarts after the end
    test nothing. Returns how many restarts happened; each one's new pod uid
    is checked and recorded as injection evidence.
    """
    session = sessions.current(configuration)
    ops = session.workflow_ops()
    name = session.workflow(workflow)
    controller = session.controller()
    done = 0
    session.fault_began(RESTARTS, restore=controller.start)
    try:
        for _ in range(times):
            phase = (ops.get(name).get("status") or {}).get("phase")
            if phase in ("Succeeded", "Failed", "Error"):
                break
            before = {p.metadata.uid for p in controller_pods.remember(session)}
            controller.restart()
            after = [
                p for p in controller_pods.listed(session) if controller_pods.ready(p)
            ]
            fresh = [p for p in after if p.metadata.uid not in before]
            if not fresh:
                raise Unexpected(
                    "the controller pod did not change across a restart: "
                    + controller_pods.describe(after)
                )
            done += 1
            session.injected(
                "restart_controller_repeatedly",
                f"restart {done}: {controller_pods.describe(fresh)} replaced "
                f"{len(before)} pod(s) while workflow {name} was {phase or 'new'}",
            )
            # The cadence of the crash loop, not a wait for a state.
            time.sleep(pause_seconds)  # noqa: sleep-ok - the fault's rhythm
    finally:
        session.fault_ended(RESTARTS)
    return done


@activity
def set_status_finalizer(
    enabled: bool, configuration: dict[str, Any] | None = None
) -> None:
    """Switch the instance's pod status-capture finalizer (profile `setStatusFinalizer`)."""
    session = sessions.current(configuration)
    session.controller().set_status_finalizer(enabled=enabled)


def wait_replaced(session: sessions.Session) -> list[Any]:
    """Wait until a ready controller pod runs that was not there before the fault."""
    before = session.memo.get(controller_pods.BEFORE, {})

    def fresh() -> list[Any] | NotYet:
        pods = controller_pods.listed(session)
        new = [
            p for p in pods if p.metadata.uid not in before and controller_pods.ready(p)
        ]
        return new or NotYet(controller_pods.describe(pods))

    found: list[Any] = sessions.poll(
        session,
        fresh,
        timeout=session.timeouts.controller_ready,
        describe=f"a new controller pod in {session.instance.namespace}",
    )
    return found
