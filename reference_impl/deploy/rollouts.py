"""Wait until a controller Deployment runs only pods of its latest settings."""

from __future__ import annotations

from reference_impl.deploy.kubectl import Kubectl

DEPLOYMENT = "deployment/workflow-controller"
CONTROLLER_PODS = "app.kubernetes.io/name=wpc-controller"
ROLLOUT_TIMEOUT = "--timeout=180s"
POD_DELETION_TIMEOUT = "--timeout=120s"
_TERMINATING = (
    "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{' '}{end}"
)


def rolled_out(kubectl: Kubectl) -> None:
    """Wait for the rollout, then for the old controller pods to be gone.

    `rollout status` returns once the new pod is available, while the old one
    may still be terminating and still leading: workflows submitted then could
    get pods built with the old settings (a finalizer switched on, seen
    without it). Old pods are the ones with a deletionTimestamp.
    """
    kubectl("rollout", "status", DEPLOYMENT, ROLLOUT_TIMEOUT)
    names = kubectl("get", "pod", "-l", CONTROLLER_PODS, "-o", _TERMINATING).split()
    if names:
        kubectl(
            "wait",
            "--for=delete",
            *(f"pod/{n}" for n in names),
            POD_DELETION_TIMEOUT,
        )
