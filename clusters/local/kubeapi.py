"""The few API calls the local provider makes while bringing a cluster up."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes import dynamic

from clusters.errors import WaitTimeout
from clusters.local.settings import LocalSettings
from plumbing.waiting import NotYet
from plumbing.waiting import until

NODE_READY_TIMEOUT = 60.0
POLL_INTERVAL = 0.2
DEPLOYMENT_TIMEOUT = 90.0


class Client:
    """Admin access to the cluster being created."""

    def __init__(self, s: LocalSettings) -> None:
        self.api = k8s_config.new_client_from_config(config_file=str(s.kubeconfig))  # type: ignore[no-untyped-call]
        self.core = k8s.CoreV1Api(self.api)
        self.apps = k8s.AppsV1Api(self.api)
        self.dynamic = dynamic.DynamicClient(self.api)  # type: ignore[no-untyped-call]

    def apply(self, manifests: list[dict[str, Any]]) -> None:
        """Server-side apply each manifest (idempotent)."""
        for obj in manifests:
            resource = self.dynamic.resources.get(
                api_version=obj["apiVersion"], kind=obj["kind"]
            )
            resource.server_side_apply(
                body=obj,
                namespace=obj["metadata"].get("namespace"),
                field_manager="wpc-clusters",
                force_conflicts=True,
            )

    def bind_apiserver_to_kubelet(self) -> None:
        """Let the apiserver's client identity use the kubelet API (logs, exec)."""
        self.apply(
            [
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRoleBinding",
                    "metadata": {"name": "wpc:kube-apiserver-kubelet-admin"},
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "ClusterRole",
                        "name": "system:kubelet-api-admin",
                    },
                    "subjects": [
                        {
                            "apiGroup": "rbac.authorization.k8s.io",
                            "kind": "User",
                            "name": "kube-apiserver",
                        }
                    ],
                }
            ]
        )

    def wait_node_ready(self, name: str) -> None:
        """Wait for the node's Ready condition to be True."""

        def probe() -> str | NotYet:
            node: Any = self.core.read_node(name)
            conds = {
                c.type: (c.status, c.message) for c in node.status.conditions or []
            }
            ready = conds.get("Ready", ("Unknown", "no Ready condition yet"))
            seen = f"Ready={ready[0]}: {ready[1]}"
            return seen if ready[0] == "True" else NotYet(seen)

        until(
            probe,
            timeout=NODE_READY_TIMEOUT,
            interval=POLL_INTERVAL,
            describe=f"node {name} to be Ready",
            ignoring=(Exception,),  # the node object appears once the kubelet registers
            error=WaitTimeout,
        )

    def wait_deployment_available(self, namespace: str, name: str) -> None:
        """Wait until the deployment has all replicas available."""

        def probe() -> str | NotYet:
            dep: Any = self.apps.read_namespaced_deployment(name, namespace)
            want = dep.spec.replicas or 0
            have = dep.status.available_replicas or 0
            pods: Any = self.core.list_namespaced_pod(
                namespace, label_selector="k8s-app=kube-dns"
            )
            states = [
                f"{p.metadata.name}: {p.status.phase} "
                + "; ".join(
                    f"{c.name} waiting {c.state.waiting.reason}: {c.state.waiting.message}"
                    for c in (p.status.container_statuses or [])
                    if c.state.waiting
                )
                for p in pods.items
            ]
            seen = f"{have}/{want} available; pods: {states}"
            return seen if have >= want > 0 else NotYet(seen)

        until(
            probe,
            timeout=DEPLOYMENT_TIMEOUT,
            interval=POLL_INTERVAL,
            describe=f"deployment {namespace}/{name}",
            ignoring=(Exception,),  # the deployment appears once it is applied
            error=WaitTimeout,
        )
