"""Controller probes: did the fault land (pods gone, pods replaced)."""

from __future__ import annotations

from typing import Any

from chaos import sessions
from chaos.activities import activity
from chaos.controller import actions
from chaos.controller import pods as controller_pods
from conformance.harness import NotYet

__all__ = ["controller_is_gone", "controller_was_replaced"]


@activity
def controller_is_gone(configuration: dict[str, Any] | None = None) -> bool:
    """No pod of the instance's controller exists (the stop landed)."""
    session = sessions.current(configuration)
    before = session.memo.get(controller_pods.BEFORE, {})

    def gone() -> bool | NotYet:
        pods = controller_pods.listed(session)
        return not pods or NotYet(controller_pods.describe(pods))

    sessions.poll(
        session,
        gone,
        timeout=session.timeouts.controller_ready,
        describe=f"the controller pods of {session.instance.namespace} to be gone",
    )
    session.injected(
        "controller_is_gone",
        f"no controller pod in {session.instance.namespace}; gone: "
        + (", ".join(f"{n} ({u})" for u, n in before.items()) or "none"),
    )
    return True


@activity
def controller_was_replaced(configuration: dict[str, Any] | None = None) -> bool:
    """A ready controller pod runs that was not there before the fault (new uid)."""
    session = sessions.current(configuration)
    before = session.memo.get(controller_pods.BEFORE, {})
    fresh = actions.wait_replaced(session)
    session.fault_ended(actions.KILLED)
    session.injected(
        "controller_was_replaced",
        f"{controller_pods.describe(fresh)} replaced "
        + (", ".join(f"{n} ({u})" for u, n in before.items()) or "nothing"),
    )
    return True
