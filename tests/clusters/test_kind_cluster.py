"""A real kind cluster with two workers, made offline from the node image built here.

We test these aspects, on one 1 + 2 node cluster this module creates and deletes:
1. every node is Ready, runs Kubernetes v1.36.4, and carries the WPC marker;
   CoreDNS runs WPC's Corefile (kubeadm's forwarded to Docker's DNS), every
   pod of it restarted onto it and Ready;
2. a pod on each worker mounts an image volume from an image `load-image` put
   into every node, and serves it;
3. a pod on one worker reaches the pod on the other worker by its pod IP
   (the project's pod network routes between nodes);
4. the same pod reaches a Service by its DNS name (CoreDNS, kube-proxy);
5. `down` leaves no node container, no kind network and no daemon of ours.

It needs the machine's one-cluster lock (see CONTRIBUTING): run it as
`flock /work/wt/cluster.lock ... pytest -m kind`, with the local cluster down.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config

from clusters import docker
from clusters import operating
from clusters import pins
from clusters import providers
from clusters.access import marker
from clusters.corefile import COREFILE
from clusters.docker import daemons
from clusters.kind import running_clusters
from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.clusters import _images
from tests.clusters.conftest import LABELS

pytestmark = [pytest.mark.cluster, pytest.mark.kind]

CLUSTER = f"wpc-kind-{uuid.uuid4().hex[:6]}"
WORKERS = 2
POLL = 0.5


@pytest.fixture(scope="module")
def kind() -> Iterator[Any]:
    operating.up(provider="kind", name=CLUSTER, workers=WORKERS)
    provider = providers.get("kind", workers=WORKERS)
    try:
        yield provider
    finally:
        operating.down(provider="kind", name=CLUSTER)


@pytest.fixture(scope="module")
def core(kind) -> k8s.CoreV1Api:
    api = k8s_config.new_client_from_config(config_file=str(kind.kubeconfig(CLUSTER)))
    return k8s.CoreV1Api(api)


@pytest.fixture(scope="module")
def images(kind) -> dict[str, str]:
    return {
        "toolbox": kind.load_image(CLUSTER, _images.toolbox_archive()),
        "data": kind.load_image(CLUSTER, _images.data_archive()),
    }


@pytest.fixture(scope="module")
def namespace(core) -> str:
    name = f"wpc-kind-proof-{uuid.uuid4().hex[:8]}"
    core.create_namespace(
        k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=name, labels=LABELS))
    )
    return name  # the whole cluster goes at the end of the module


def _workers(core) -> list[str]:
    nodes = core.list_node().items
    return sorted(
        n.metadata.name
        for n in nodes
        if "node-role.kubernetes.io/control-plane" not in (n.metadata.labels or {})
    )


def _server(name: str, node: str, images: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {**LABELS, "app": name}},
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "c",
                    "image": images["toolbox"],
                    "imagePullPolicy": "Never",
                    "command": [
                        "/bin/sh",
                        "-c",
                        f'exec /bin/probe serve :8080 "{node}: $(cat /mnt/data/hello.txt)"',
                    ],
                    "volumeMounts": [
                        {"name": "d", "mountPath": "/mnt", "readOnly": True}
                    ],
                }
            ],
            "volumes": [
                {
                    "name": "d",
                    "image": {
                        "reference": images["data"],
                        "pullPolicy": "IfNotPresent",
                    },
                }
            ],
        },
    }


def _client(name: str, node: str, url: str, images: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": LABELS},
        "spec": {
            "nodeName": node,
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "c",
                    "image": images["toolbox"],
                    "imagePullPolicy": "Never",
                    "command": ["/bin/probe", "get", url],
                }
            ],
        },
    }


def _running_ip(core, namespace: str, name: str) -> str | NotYet:
    pod = core.read_namespaced_pod(name, namespace)
    seen = f"{pod.status.phase} {pod.status.pod_ip} {pod.status.container_statuses}"
    return pod.status.pod_ip if pod.status.phase == "Running" else NotYet(seen)


def _finished_logs(core, namespace: str, name: str) -> str:
    def done() -> str | NotYet:
        pod = core.read_namespaced_pod(name, namespace)
        seen = f"{pod.status.phase}: {pod.status.container_statuses}"
        return (
            pod.status.phase
            if pod.status.phase in ("Succeeded", "Failed")
            else NotYet(seen)
        )

    phase = until(done, timeout=90, interval=POLL, describe=f"pod {name} to finish")
    logs = core.read_namespaced_pod_log(name, namespace)
    assert phase == "Succeeded", f"{name}: {phase}; logs: {logs}"
    return str(logs)


def test_every_node_is_ready_runs_1_36_4_and_the_cluster_is_marked(core):
    nodes = core.list_node().items
    assert len(nodes) == 1 + WORKERS
    for node in nodes:
        ready = [c.status for c in node.status.conditions if c.type == "Ready"]
        assert ready == ["True"], node.metadata.name
        assert node.status.node_info.kubelet_version == pins.KUBERNETES
    data = marker.check(core)
    assert (data["provider"], data["name"]) == ("kind", CLUSTER)
    # What reports record of the nodes (their environment block copies the marker).
    assert data["nodeImage"].startswith("wpc.local/kind-node:v1.36.4-")
    assert data["nodeImageId"].startswith("sha256:")


def test_coredns_runs_wpcs_corefile_which_forwards_nothing(core):
    corefile = core.read_namespaced_config_map("coredns", "kube-system").data[
        "Corefile"
    ]
    assert corefile == COREFILE
    assert "forward" not in corefile
    # `up` restarted CoreDNS onto it and waited: every pod left is of the restarted
    # template and Ready (a pod of kubeadm's would still run the Corefile it read).
    pods = [
        pod
        for pod in core.list_namespaced_pod(
            "kube-system", label_selector="k8s-app=kube-dns"
        ).items
        if pod.metadata.deletion_timestamp is None
    ]
    restarted = {
        (pod.metadata.annotations or {}).get("kubectl.kubernetes.io/restartedAt")
        for pod in pods
    }
    assert len(restarted) == 1, restarted
    assert None not in restarted, "CoreDNS was never restarted"
    ready = {
        pod.metadata.name: [
            c.status for c in pod.status.conditions or [] if c.type == "Ready"
        ]
        for pod in pods
    }
    assert pods
    assert all(v == ["True"] for v in ready.values()), ready


def test_pods_on_both_workers_serve_an_image_volume_and_reach_each_other_and_dns(
    core, namespace, images
):
    first, second = _workers(core)
    core.create_namespaced_pod(namespace, _server("web-a", first, images))
    core.create_namespaced_pod(namespace, _server("web-b", second, images))
    core.create_namespaced_service(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web-a", "labels": LABELS},
            "spec": {
                "selector": {"app": "web-a"},
                "ports": [{"port": 80, "targetPort": 8080}],
            },
        },
    )
    ip_a = until(
        lambda: _running_ip(core, namespace, "web-a"),
        timeout=120,
        interval=POLL,
        describe="web-a to run on the first worker",
    )
    ip_b = until(
        lambda: _running_ip(core, namespace, "web-b"),
        timeout=120,
        interval=POLL,
        describe="web-b to run on the second worker",
    )
    text = _images.DATA_TEXT.strip()
    # From the second worker to the first by pod IP, and back the other way.
    across = _finished_logs(
        core,
        namespace,
        _created(
            core, namespace, _client("to-a", second, f"http://{ip_a}:8080/", images)
        ),
    )
    assert across.strip() == f"200 {first}: {text}"
    back = _finished_logs(
        core,
        namespace,
        _created(
            core, namespace, _client("to-b", first, f"http://{ip_b}:8080/", images)
        ),
    )
    assert back.strip() == f"200 {second}: {text}"
    by_name = _finished_logs(
        core,
        namespace,
        _created(
            core,
            namespace,
            _client(
                "by-dns", second, f"http://web-a.{namespace}.svc.cluster.local/", images
            ),
        ),
    )
    assert by_name.strip() == f"200 {first}: {text}"


def _created(core, namespace: str, pod: dict[str, Any]) -> str:
    core.create_namespaced_pod(namespace, pod)
    return str(pod["metadata"]["name"])


def test_down_leaves_no_container_network_or_daemon_of_ours(kind):
    operating.down(provider="kind", name=CLUSTER)
    s = docker.DockerSettings.from_env()
    assert not daemons.running(s), (
        f"WPC's engine is still up; kind clusters on it: {running_clusters(s)}"
    )
    assert docker.leftovers(s) == []
    assert not kind.status(CLUSTER).running
    operating.down(provider="kind", name=CLUSTER)  # idempotent
