"""We test these aspects of the in-cluster API client against a loopback HTTPS server:

the request (path, verb, bearer token re-read from file, JSON and merge-patch
content types, TLS verified against the given CA), and error mapping (Status
`reason` such as AlreadyExists, and "no answer" as a transient status 0).
"""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import json
import ssl
import threading
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from reference_impl.executor.api import kubeapi
from reference_impl.executor.errors import ApiError


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    d = tmp_path_factory.mktemp("tls")
    (d / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (d / "tls.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return d


@pytest.fixture
def server(tls_files):
    requests = []
    replies: list[tuple[int, dict[str, Any]]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def _serve(self):
            length = int(self.headers.get("Content-Length", 0))
            requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "auth": self.headers.get("Authorization"),
                    "type": self.headers.get("Content-Type"),
                    "body": json.loads(self.rfile.read(length)) if length else None,
                }
            )
            status, body = replies.pop(0) if replies else (201, {})
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = _serve
        do_PATCH = _serve
        do_GET = _serve

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls_files / "tls.crt", tls_files / "tls.key")
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield httpd.server_address[1], requests, replies
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def client(server, tls_files, tmp_path):
    port, _, _ = server
    (tmp_path / "token").write_text("tok-1\n")
    settings = kubeapi.KubeSettings(
        host="127.0.0.1",
        port=port,
        token_path=tmp_path / "token",
        ca_path=tls_files / "tls.crt",
        namespace="argo",
        timeout=5,
    )
    return kubeapi.InClusterClient(settings)


def test_create_posts_json_with_the_bearer_token(client, server):
    _, requests, _ = server
    client.create(namespace="argo", body={"metadata": {"name": "n"}})
    assert requests == [
        {
            "method": "POST",
            "path": "/apis/argoproj.io/v1alpha1/namespaces/argo/workflowtaskresults",
            "auth": "Bearer tok-1",
            "type": "application/json",
            "body": {"metadata": {"name": "n"}},
        }
    ]


def test_patch_is_a_merge_patch_on_the_named_object(client, server, tmp_path):
    _, requests, _ = server
    (tmp_path / "token").write_text("tok-2")  # rotated: re-read per request
    client.merge_patch(namespace="argo", name="wf-1", patch={"outputs": {}})
    assert requests[0]["method"] == "PATCH"
    assert requests[0]["path"].endswith("/workflowtaskresults/wf-1")
    assert requests[0]["type"] == "application/merge-patch+json"
    assert requests[0]["auth"] == "Bearer tok-2"


def test_get_reads_the_named_object_without_a_body(client, server):
    # Only the `result-read-back` fault uses GET; a real executor Role denies it.
    _, requests, replies = server
    replies.append((403, {"reason": "Forbidden", "message": "denied"}))
    with pytest.raises(ApiError, match="403 Forbidden: denied") as caught:
        client.get(namespace="argo", name="wf-1")
    assert not caught.value.transient
    assert requests == [
        {
            "method": "GET",
            "path": "/apis/argoproj.io/v1alpha1/namespaces/argo/workflowtaskresults/wf-1",
            "auth": "Bearer tok-1",
            "type": None,
            "body": None,
        }
    ]


def test_status_reason_is_mapped(client, server):
    _, _, replies = server
    replies.append(
        (409, {"kind": "Status", "reason": "AlreadyExists", "message": "exists"})
    )
    with pytest.raises(ApiError) as err:
        client.create(namespace="argo", body={})
    assert (err.value.status, err.value.reason, err.value.transient) == (
        409,
        "AlreadyExists",
        False,
    )


def test_no_answer_is_transient(tls_files, tmp_path):
    (tmp_path / "token").write_text("t")
    settings = kubeapi.KubeSettings(
        host="127.0.0.1",
        port=1,
        token_path=tmp_path / "token",
        ca_path=tls_files / "tls.crt",
        timeout=1,
    )
    with pytest.raises(ApiError) as err:
        kubeapi.InClusterClient(settings).create(namespace="argo", body={})
    assert err.value.status == 0
    assert err.value.transient
