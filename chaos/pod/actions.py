"""Pod actions: delete a step's pod, let a held user command go on."""

from __future__ import annotations

import logging
from typing import Any

from kubernetes.client.exceptions import ApiException

from chaos import sessions
from chaos.activities import activity
from chaos.errors import SessionError
from chaos.pod import finding
from chaos.pod import polling
from conformance.errors import HarnessError
from conformance.harness import NotYet
from conformance.harness.inspecting import executing
from conformance.harness.stage import namespaces

logger = logging.getLogger(__name__)

POD_DELETED = "pod deleted"

__all__ = ["delete_step_pod", "release_main"]


@activity
def delete_step_pod(
    step: str,
    workflow: str = "main",
    grace_seconds: int = 0,
    strip_finalizer: bool = True,
    configuration: dict[str, Any] | None = None,
) -> str:
    """Delete the step's live pod.

    By default as a forced delete (grace 0, the status finalizer stripped
    first), so it vanishes at once, as after a node loss.
    """
    session = sessions.current(configuration)
    pod = polling.live_pod(session, workflow, step)
    if isinstance(pod, NotYet):
        raise SessionError(f"step {step} has no live pod to delete")
    polling.remember(session, step, pod)
    if strip_finalizer:
        namespaces.strip_status_finalizers(session.clients, session.namespace)
    session.fault_began(POD_DELETED)
    session.clients.core.delete_namespaced_pod(
        pod.metadata.name, session.namespace, grace_period_seconds=grace_seconds
    )
    session.fault_ended(POD_DELETED)
    logger.info("[%s] Deleted pod %s.", session.experiment, pod.metadata.name)
    return str(pod.metadata.name)


@activity
def release_main(
    step: str, workflow: str = "main", configuration: dict[str, Any] | None = None
) -> None:
    """Let the step's held user command finish (create `/tmp/go` in `main`)."""
    session = sessions.current(configuration)
    name = polling.remembered_name(session, step)
    if name is None:
        name = finding.step_pods(session, workflow, step)[-1].metadata.name
    shell = executing.Shell(
        clients=session.clients, namespace=session.namespace, timeouts=session.timeouts
    )

    def released() -> bool:
        shell.release(name)
        return True

    # A kubelet that just restarted answers exec with 404 until it knows its
    # pods again: retry within the budget instead of failing the experiment.
    sessions.poll(
        session,
        released,
        timeout=session.timeouts.api_call,
        describe=f"/tmp/go to be created in {name}/main",
        ignoring=(ApiException, HarnessError),
    )
