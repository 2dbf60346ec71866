"""Install and remove controller instances, and the cluster-wide pieces they share."""

from __future__ import annotations

from reference_impl import common
from reference_impl.deploy import rendering
from reference_impl.deploy import rollouts
from reference_impl.deploy.kubectl import Kubectl

ARTIFACT_DEPLOYMENTS = ("wpc-s3", "wpc-http-artifacts")


def install_shared(kubectl: Kubectl) -> None:
    """Apply the CRDs, the ClusterRole and the artifact servers; wait for the servers."""
    objects = [
        *rendering.shared_objects(),
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": common.CONTROLLER_NAMESPACE},
        },
    ]
    kubectl("apply", "--server-side", "-f", "-", stdin=rendering.dump(objects))
    kubectl("apply", "--server-side", "-k", str(rendering.ARTIFACTS))
    servers = kubectl.in_namespace(common.CONTROLLER_NAMESPACE)
    for deployment in ARTIFACT_DEPLOYMENTS:
        servers(
            "rollout", "status", f"deployment/{deployment}", rollouts.ROLLOUT_TIMEOUT
        )


def install(kubectl: Kubectl, instance: rendering.Instance) -> None:
    """Apply one instance's objects and wait until its controller runs them."""
    kubectl(
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
        stdin=rendering.dump(rendering.instance_objects(instance)),
    )
    rollouts.rolled_out(kubectl.in_namespace(instance.namespace))


def uninstall(kubectl: Kubectl, namespace: str) -> None:
    """Delete one instance (its namespace and binding) and wait until it is gone."""
    kubectl(
        "delete",
        "--ignore-not-found",
        "--wait=true",
        f"clusterrolebinding/wpc-reference-{namespace}",
        f"namespace/{namespace}",
    )
