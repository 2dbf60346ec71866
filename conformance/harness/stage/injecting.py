"""The suite's injecting admission webhook: containers the controller never wrapped.

Service meshes and log shippers add containers to pods after the controller
built them; the KILL clauses on injected sidecars need such a container.
`injected_sidecar()` runs the tools image's `probe webhook` in the test's
namespace behind a Service with a fresh self-signed certificate, and
registers a MutatingWebhookConfiguration that appends a container named
`injected` (running `command`) to the namespace's pods carrying the opt-in
label `wpc.dev/inject: "true"`. The configuration is cluster-scoped, so it is
named after the test namespace, carries the run's labels, and is deleted (and
awaited) on exit; the namespaced pieces go with the namespace.

Setup returns only once a dry-run pod comes back mutated: the API server
picks up a new webhook configuration asynchronously, and a workflow pod
created before that would silently miss its injected container.
"""

from __future__ import annotations

import base64
import datetime
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.watching import until
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

CONTAINER = "injected"
"""Name of the container the webhook appends."""
OPT_IN = {"wpc.dev/inject": "true"}
"""Pod labels that opt a pod into the injection (set them through podMetadata)."""
SERVER = "wpc-injector"
PORT = 8443


def serving_certificate(dns: str) -> tuple[bytes, bytes]:
    """A self-signed certificate and key (PEM) for `dns`, valid for a day."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from plumbing import certificates

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns)])
    cert = (
        certificates.self_signed(
            key,
            name,
            valid_from=now - datetime.timedelta(minutes=5),
            valid_until=now + datetime.timedelta(days=1),
        )
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


def _server_pod(
    *, image: str, command: list[str], labels: dict[str, str]
) -> dict[str, Any]:
    return {
        "metadata": {"name": SERVER, "labels": {**labels, "app": SERVER}},
        "spec": {
            "terminationGracePeriodSeconds": 1,
            "containers": [
                {
                    "name": "webhook",
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "command": [
                        "/bin/probe",
                        "webhook",
                        f":{PORT}",
                        "/tls/tls.crt",
                        "/tls/tls.key",
                    ],
                    "env": [
                        {"name": "INJECT_IMAGE", "value": image},
                        {"name": "INJECT_COMMAND", "value": json.dumps(command)},
                    ],
                    "volumeMounts": [{"name": "tls", "mountPath": "/tls"}],
                    "readinessProbe": {
                        "tcpSocket": {"port": PORT},
                        "periodSeconds": 1,
                    },
                }
            ],
            "volumes": [{"name": "tls", "secret": {"secretName": SERVER}}],
        },
    }


def _configuration(
    *, name: str, namespace: str, labels: dict[str, str], ca: bytes
) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": labels},
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
                "objectSelector": {"matchLabels": dict(OPT_IN)},
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
                        "name": SERVER,
                        "path": "/mutate",
                    },
                    "caBundle": base64.b64encode(ca).decode(),
                },
            }
        ],
    }


def _start_server(
    clients: kube.Clients,
    *,
    namespace: str,
    labels: dict[str, str],
    image: str,
    command: list[str],
) -> bytes:
    cert, key = serving_certificate(f"{SERVER}.{namespace}.svc")
    clients.core.create_namespaced_secret(
        namespace,
        {
            "metadata": {"name": SERVER, "labels": labels},
            "stringData": {"tls.crt": cert.decode(), "tls.key": key.decode()},
        },
    )
    clients.core.create_namespaced_pod(
        namespace, _server_pod(image=image, command=command, labels=labels)
    )
    clients.core.create_namespaced_service(
        namespace,
        {
            "metadata": {"name": SERVER, "labels": labels},
            "spec": {
                "selector": {"app": SERVER},
                "ports": [{"port": 443, "targetPort": PORT}],
            },
        },
    )
    return cert


def _dry_run_containers(
    clients: kube.Clients, *, namespace: str, image: str
) -> list[str] | NotYet:
    from kubernetes.client.exceptions import ApiException

    probe = {
        "metadata": {"name": "wpc-injection-check", "labels": dict(OPT_IN)},
        "spec": {"containers": [{"name": "c", "image": image, "command": ["true"]}]},
    }
    try:
        pod = clients.core.create_namespaced_pod(namespace, probe, dry_run="All")
    except ApiException as exc:
        return NotYet(f"dry-run pod refused: HTTP {exc.status} {exc.reason}")
    names = [c.name for c in pod.spec.containers]
    return names if CONTAINER in names else NotYet(f"dry-run pod containers {names}")


@contextmanager
def injected_sidecar(
    clients: kube.Clients,
    *,
    namespace: str,
    labels: dict[str, str],
    image: str,
    command: list[str],
    timeouts: Timeouts,
) -> Iterator[dict[str, str]]:
    """Inject `command` as container `injected` into opted-in pods; yield the opt-in labels."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    admission: Any = client.AdmissionregistrationV1Api(clients.api)
    name = f"{namespace}.inject.wpc.dev"
    ca = _start_server(
        clients, namespace=namespace, labels=labels, image=image, command=command
    )

    def server_ready() -> bool | NotYet:
        pod = clients.core.read_namespaced_pod(SERVER, namespace)
        statuses = pod.status.container_statuses or []
        return bool(statuses and statuses[0].ready) or NotYet(
            f"phase={pod.status.phase} statuses={statuses}"
        )

    until(
        server_ready,
        timeout=timeouts.webhook_ready,
        interval=timeouts.poll_interval,
        describe=f"the injecting webhook server in {namespace} to be ready",
    )
    admission.create_mutating_webhook_configuration(
        _configuration(name=name, namespace=namespace, labels=labels, ca=ca)
    )
    try:
        until(
            lambda: _dry_run_containers(clients, namespace=namespace, image=image),
            timeout=timeouts.webhook_ready,
            interval=timeouts.poll_interval,
            describe=f"the API server to call the injecting webhook {name}",
        )
        logger.info("[%s] The injecting webhook %s is active.", namespace, name)
        yield dict(OPT_IN)
    finally:
        admission.delete_mutating_webhook_configuration(name)

        def deleted() -> bool | NotYet:
            try:
                admission.read_mutating_webhook_configuration(name)
            except ApiException as exc:
                if exc.status == 404:
                    return True
                raise
            return NotYet(f"{name} still exists")

        until(
            deleted,
            timeout=timeouts.api_call,
            interval=timeouts.poll_interval,
            describe=f"the webhook configuration {name} to be deleted",
        )
