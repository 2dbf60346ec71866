"""In-cluster add-ons of the local cluster: CoreDNS, rendered as manifests.

CoreDNS serves the cluster's own zones and forwards nothing: pods need no
outside names, and no lookup may leave the machine.
"""

from __future__ import annotations

from typing import Any

from clusters import pins
from clusters.corefile import COREFILE
from clusters.local.settings import LocalSettings

__all__ = ["COREDNS_IMAGE", "COREFILE", "coredns_manifests"]

COREDNS_IMAGE = f"wpc.local/coredns:{pins.COREDNS}"


def coredns_manifests(s: LocalSettings) -> list[dict[str, Any]]:
    """ServiceAccount, RBAC, Corefile, Deployment and the kube-dns Service."""
    labels = {"k8s-app": "kube-dns"}
    meta = {"namespace": "kube-system"}
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "coredns", **meta},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "system:coredns"},
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["endpoints", "services", "pods", "namespaces"],
                    "verbs": ["list", "watch"],
                },
                {
                    "apiGroups": ["discovery.k8s.io"],
                    "resources": ["endpointslices"],
                    "verbs": ["list", "watch"],
                },
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "system:coredns"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "system:coredns",
            },
            "subjects": [
                {
                    "kind": "ServiceAccount",
                    "name": "coredns",
                    "namespace": "kube-system",
                }
            ],
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "coredns", **meta},
            "data": {"Corefile": COREFILE},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "coredns", **meta, "labels": labels},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "serviceAccountName": "coredns",
                        "priorityClassName": "system-cluster-critical",
                        "dnsPolicy": "Default",
                        "containers": [
                            {
                                "name": "coredns",
                                "image": COREDNS_IMAGE,
                                "imagePullPolicy": "Never",
                                "args": ["-conf", "/etc/coredns/Corefile"],
                                "ports": [
                                    {
                                        "containerPort": 53,
                                        "name": "dns",
                                        "protocol": "UDP",
                                    },
                                    {
                                        "containerPort": 53,
                                        "name": "dns-tcp",
                                        "protocol": "TCP",
                                    },
                                ],
                                "volumeMounts": [
                                    {"name": "config", "mountPath": "/etc/coredns"}
                                ],
                                "readinessProbe": {
                                    "httpGet": {"path": "/ready", "port": 8181},
                                    "periodSeconds": 1,
                                },
                                "livenessProbe": {
                                    "httpGet": {"path": "/health", "port": 8080},
                                    "initialDelaySeconds": 10,
                                },
                            }
                        ],
                        "volumes": [
                            {"name": "config", "configMap": {"name": "coredns"}}
                        ],
                    },
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns", **meta, "labels": labels},
            "spec": {
                "selector": labels,
                "clusterIP": s.dns_service_ip,
                "ports": [
                    {"name": "dns", "port": 53, "protocol": "UDP"},
                    {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
                ],
            },
        },
    ]


COREDNS_DOCKERFILE = """FROM scratch
COPY coredns /coredns
ENTRYPOINT ["/coredns"]
"""

PAUSE_DOCKERFILE = """FROM scratch
COPY pause /pause
ENTRYPOINT ["/pause"]
"""
