"""Stop, start and restart the controller of one instance (the chaos verbs)."""

from __future__ import annotations

from reference_impl.deploy import rollouts
from reference_impl.deploy.kubectl import Kubectl


def stop(kubectl: Kubectl) -> None:
    """Scale the controller to zero and wait until its pods are gone."""
    kubectl("scale", rollouts.DEPLOYMENT, "--replicas=0")
    kubectl(
        "wait",
        "--for=delete",
        "pod",
        "-l",
        rollouts.CONTROLLER_PODS,
        rollouts.POD_DELETION_TIMEOUT,
    )


def start(kubectl: Kubectl) -> None:
    """Scale the controller to one and wait until only the new pod runs."""
    kubectl("scale", rollouts.DEPLOYMENT, "--replicas=1")
    rollouts.rolled_out(kubectl)


def restart(kubectl: Kubectl) -> None:
    """Restart the controller and wait until only the new pod runs."""
    kubectl("rollout", "restart", rollouts.DEPLOYMENT)
    rollouts.rolled_out(kubectl)
