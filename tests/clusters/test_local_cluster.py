"""Proofs that the local cluster is real Kubernetes, not a stand-in.

We test these aspects, each on the running local cluster:
1. an image volume (KEP-4639) serves a file from a locally built image;
2. `kubectl logs` and `kubectl exec` work (apiserver -> kubelet and back);
3. a pod reaches the API through the `kubernetes` Service with its token,
   and reaches another Service by DNS name;
4. deleting an owner garbage-collects its dependents;
5. a pod with a finalizer stays Terminating until the finalizer goes;
6. a mutating webhook served from a pod is called and injects a container.
(7, `down` leaves nothing behind, is in test_teardown.py: it runs last.)
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from clusters._waiting import until
from tests.clusters import _images
from tests.clusters.conftest import LABELS
from tests.clusters.conftest import kubectl_run
from tests.clusters.conftest import run_pod

pytestmark = pytest.mark.cluster


def _pod(name: str, image: str, command: list[str], **spec: Any) -> dict[str, Any]:
    container = {
        "name": "c",
        "image": image,
        "imagePullPolicy": "Never",
        "command": command,
    }
    container.update(spec.pop("container", {}))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"restartPolicy": "Never", "containers": [container], **spec},
    }


def test_image_volume_serves_a_file_from_a_locally_built_image(
    core, namespace, toolbox, data_image
):
    pod = _pod(
        "image-volume",
        toolbox,
        ["/bin/cat", "/mnt/data/hello.txt"],
        container={
            "volumeMounts": [{"name": "d", "mountPath": "/mnt", "readOnly": True}]
        },
        volumes=[
            {
                "name": "d",
                "image": {"reference": data_image, "pullPolicy": "IfNotPresent"},
            }
        ],
    )
    assert run_pod(core, namespace, pod) == _images.DATA_TEXT


def test_kubectl_logs_and_exec_reach_the_kubelet(core, namespace, toolbox, kubectl):
    pod = _pod(
        "sleeper", toolbox, ["/bin/sh", "-c", "echo logged-line; exec sleep 3600"]
    )
    pod["metadata"]["labels"] = dict(LABELS)
    core.create_namespaced_pod(namespace, pod)
    until(
        lambda: (
            core.read_namespaced_pod("sleeper", namespace).status.phase == "Running",
            "not running",
        ),
        timeout=60,
        describe="sleeper to run",
    )
    until(
        lambda: (
            "logged-line"
            in (out := kubectl_run(kubectl, "-n", namespace, "logs", "sleeper")),
            out,
        ),
        timeout=30,
        describe="the log line",
    )
    out = kubectl_run(
        kubectl,
        "-n",
        namespace,
        "exec",
        "sleeper",
        "--",
        "/bin/sh",
        "-c",
        "echo from-exec",
    )
    assert out.strip() == "from-exec"


def test_pod_reaches_the_api_with_its_token_and_a_service_by_dns_name(
    core, namespace, toolbox
):
    assert run_pod(
        core, namespace, _pod("api", toolbox, ["/bin/probe", "api"])
    ).startswith("200 ")
    server = _pod(
        "web", toolbox, ["/bin/probe", "serve", ":8080", "hello-from-service"]
    )
    server["metadata"]["labels"] = {"app": "web"}
    server["spec"]["restartPolicy"] = "Always"
    core.create_namespaced_pod(namespace, server)
    core.create_namespaced_service(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "labels": LABELS},
            "spec": {
                "selector": {"app": "web"},
                "ports": [{"port": 80, "targetPort": 8080}],
            },
        },
    )
    until(
        lambda: (
            core.read_namespaced_pod("web", namespace).status.phase == "Running",
            "not running",
        ),
        timeout=60,
        describe="web to run",
    )
    url = f"http://web.{namespace}.svc.cluster.local/"
    logs = run_pod(core, namespace, _pod("client", toolbox, ["/bin/probe", "get", url]))
    assert logs.strip() == "200 hello-from-service"


def test_deleting_an_owner_garbage_collects_its_dependents(core, namespace):
    owner = core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "owner", "labels": LABELS}}
    )
    core.create_namespaced_config_map(
        namespace,
        {
            "metadata": {
                "name": "dependent",
                "labels": LABELS,
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": "owner",
                        "uid": owner.metadata.uid,
                    }
                ],
            }
        },
    )
    core.delete_namespaced_config_map("owner", namespace)

    def dependent_gone() -> tuple[bool, str]:
        try:
            core.read_namespaced_config_map("dependent", namespace)
        except ApiException as exc:
            return exc.status == 404, f"HTTP {exc.status}"
        return False, "dependent still exists"

    until(
        dependent_gone,
        timeout=60,
        describe="the garbage collector to delete the dependent",
    )


def test_a_finalizer_keeps_a_deleted_pod_terminating_until_removed(
    core, namespace, toolbox
):
    pod = _pod("held", toolbox, ["/bin/sleep", "3600"])
    pod["metadata"]["finalizers"] = ["wpc.dev/hold"]
    pod["metadata"]["labels"] = dict(LABELS)
    pod["spec"]["terminationGracePeriodSeconds"] = 1
    core.create_namespaced_pod(namespace, pod)
    core.delete_namespaced_pod("held", namespace)

    def terminated_but_held() -> tuple[bool, str]:
        p = core.read_namespaced_pod("held", namespace)
        states = [c.state.terminated for c in p.status.container_statuses or []]
        done = (
            p.metadata.deletion_timestamp is not None and all(states) and bool(states)
        )
        return (
            done,
            f"deletionTimestamp={p.metadata.deletion_timestamp} states={states}",
        )

    # The containers stop, yet the object stays: only the finalizer holds it.
    until(
        terminated_but_held,
        timeout=60,
        describe="the pod's containers to stop while it is held",
    )
    assert core.read_namespaced_pod("held", namespace).metadata.finalizers == [
        "wpc.dev/hold"
    ]
    core.patch_namespaced_pod("held", namespace, {"metadata": {"finalizers": None}})

    def gone() -> tuple[bool, str]:
        try:
            core.read_namespaced_pod("held", namespace)
        except ApiException as exc:
            return exc.status == 404, f"HTTP {exc.status}"
        return False, "still there"

    until(gone, timeout=60, describe="the pod to go once the finalizer is removed")


def _serving_cert(dns: str) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem_key = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return cert.public_bytes(serialization.Encoding.PEM), pem_key


def test_a_mutating_webhook_served_from_a_pod_injects_a_container(
    api, core, namespace, toolbox
):
    service = f"injector.{namespace}.svc"
    cert, key = _serving_cert(service)
    core.create_namespaced_secret(
        namespace,
        {
            "metadata": {"name": "tls", "labels": LABELS},
            "stringData": {"tls.crt": cert.decode(), "tls.key": key.decode()},
        },
    )
    server = _pod(
        "injector",
        toolbox,
        ["/bin/probe", "webhook", ":8443", "/tls/tls.crt", "/tls/tls.key"],
        container={
            "env": [{"name": "INJECT_IMAGE", "value": toolbox}],
            "volumeMounts": [{"name": "tls", "mountPath": "/tls"}],
            "readinessProbe": {"tcpSocket": {"port": 8443}, "periodSeconds": 1},
        },
        volumes=[{"name": "tls", "secret": {"secretName": "tls"}}],
    )
    server["metadata"]["labels"] = {"app": "injector", **LABELS}
    server["spec"]["restartPolicy"] = "Always"
    core.create_namespaced_pod(namespace, server)
    core.create_namespaced_service(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "injector", "labels": LABELS},
            "spec": {
                "selector": {"app": "injector"},
                "ports": [{"port": 443, "targetPort": 8443}],
            },
        },
    )
    until(
        lambda: (
            bool(
                (
                    p := core.read_namespaced_pod("injector", namespace)
                ).status.container_statuses
            )
            and p.status.container_statuses[0].ready,
            "not ready",
        ),
        timeout=60,
        describe="the webhook server to be ready",
    )
    admission = k8s.AdmissionregistrationV1Api(api)
    hook_name = f"{namespace}.wpc.dev"
    admission.create_mutating_webhook_configuration(
        {
            "metadata": {"name": hook_name, "labels": LABELS},
            "webhooks": [
                {
                    "name": "inject.wpc.dev",
                    "admissionReviewVersions": ["v1"],
                    "sideEffects": "None",
                    "failurePolicy": "Fail",
                    "timeoutSeconds": 10,
                    "namespaceSelector": {
                        "matchLabels": {"kubernetes.io/metadata.name": namespace}
                    },
                    "objectSelector": {"matchLabels": {"wpc.dev/inject": "yes"}},
                    "rules": [
                        {
                            "operations": ["CREATE"],
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "resources": ["pods"],
                        }
                    ],
                    "clientConfig": {
                        "service": {
                            "namespace": namespace,
                            "name": "injector",
                            "path": "/mutate",
                        },
                        "caBundle": base64.b64encode(cert).decode(),
                    },
                }
            ],
        }
    )
    try:
        target = _pod("target", toolbox, ["/bin/sleep", "1"])
        target["metadata"]["labels"] = {"wpc.dev/inject": "yes", **LABELS}
        created = core.create_namespaced_pod(namespace, target)
        assert [c.name for c in created.spec.containers] == ["c", "injected"]
    finally:
        admission.delete_mutating_webhook_configuration(hook_name)
