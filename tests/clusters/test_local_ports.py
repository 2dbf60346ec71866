"""Every listening port of the local cluster, with its address and its auth, pinned.

We test these aspects on the running local cluster: the cluster's processes
listen on exactly the ports of `EXPECTED` (an unexpected listener fails,
named); then each row's claim is proved by calling it: etcd refuses plain
http, TLS without a client cert and certs of the cluster's client CA, and
answers its own health client; its plain metrics port serves no writes; the
apiserver answers anonymous callers on the health paths only (401 on /api);
the kubelet refuses anonymous callers; the controller manager and scheduler
serve health anonymously and nothing else; the loopback http ports serve
health and metrics only; containerd's stream port serves nothing without a
token; and the WPC-INGRESS guard drops connections to the apiserver and
kubelet that come from another interface, while a port it does not guard
stays reachable that way.
"""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clusters.local import host
from clusters.local.settings import LocalSettings
from tests.clusters import _listeners
from tests.clusters import _netns
from tests.clusters._listeners import Listener
from tests.clusters.conftest import CLUSTER

pytestmark = pytest.mark.cluster

NODE = "<node ip>"
EXPECTED = {
    ("etcd", "127.0.0.1", 2379): "mTLS: client cert from etcd's own CA",
    ("etcd", "127.0.0.1", 2380): "mTLS: peer cert from etcd's own CA",
    ("etcd", "127.0.0.1", 2381): "plain http, loopback: metrics and health, read-only",
    ("kube-apiserver", NODE, 6443): (
        "TLS + authn (client cert, token), anonymous only for /livez /readyz "
        "/healthz; WPC-INGRESS: loopback and pods only"
    ),
    ("kube-controller-manager", "127.0.0.1", 10257): (
        "TLS + delegated authn/authz, anonymous only for health paths"
    ),
    ("kube-scheduler", "127.0.0.1", 10259): (
        "TLS + delegated authn/authz, anonymous only for health paths"
    ),
    ("kubelet", NODE, 10250): (
        "TLS + authn (client cert, token), anonymous refused, webhook authz; "
        "WPC-INGRESS: loopback and pods only"
    ),
    ("kubelet", "127.0.0.1", 10248): "plain http, loopback: health only",
    ("kube-proxy", "127.0.0.1", 10249): "plain http, loopback: metrics, read-only",
    ("kube-proxy", "127.0.0.1", 10256): "plain http, loopback: health only",
    ("containerd", "127.0.0.1", 10010): (
        "plain http, loopback: CRI streams, each behind a one-time token"
    ),
}


@pytest.fixture(scope="module")
def settings() -> LocalSettings:
    return LocalSettings.from_env(CLUSTER)


@pytest.fixture(scope="module")
def pki(settings) -> Path:
    return settings.pki_dir


def _expected(settings: LocalSettings) -> set[Listener]:
    return {
        Listener(c, settings.node_ip if a == NODE else a, p) for c, a, p in EXPECTED
    }


def test_the_cluster_listens_on_exactly_the_expected_ports(local, settings):
    actual = _listeners.of_cluster(settings.state_dir)
    expected = _expected(settings)
    unexpected = sorted(actual - expected)
    missing = sorted(expected - actual)
    assert not unexpected, f"unexpected listeners (not in EXPECTED): {unexpected}"
    assert not missing, f"expected listeners not found: {missing}"


def _get(
    url: str, *, tls: ssl.SSLContext | None = None, method: str = "GET"
) -> tuple[int, str]:
    """(status, body) of one request; (0, reason) when the connection fails."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5, context=tls) as resp:
            return resp.status, resp.read(2000).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(2000).decode(errors="replace")
    except (urllib.error.URLError, OSError) as exc:
        return 0, f"{type(exc).__name__}: {exc}"


def _tls(ca: Path | None = None, cert: Path | None = None, key: Path | None = None):
    ctx = ssl.create_default_context(cafile=str(ca) if ca else None)
    if ca is None:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cert and key:
        ctx.load_cert_chain(str(cert), str(key))
    return ctx


def test_etcd_answers_only_clients_with_a_cert_from_its_ca(local, pki):
    health = "https://127.0.0.1:2379/health"
    good = _tls(
        pki / "etcd-ca.crt",
        pki / "etcd-healthcheck-client.crt",
        pki / "etcd-healthcheck-client.key",
    )
    status, body = _get(health, tls=good)
    assert (status, json.loads(body)["health"]) == (200, "true"), body
    # (status, what the refusal must say): TLS alerts name the reason
    refused = {
        "plain http": (_get("http://127.0.0.1:2379/health"), ""),
        "plain http write": (
            _get("http://127.0.0.1:2379/v3/kv/put", method="POST"),
            "",
        ),
        "TLS without a client cert": (
            _get(health, tls=_tls(pki / "etcd-ca.crt")),
            "CERTIFICATE_REQUIRED",
        ),
        "a cert of the cluster's client CA": (
            _get(
                health,
                tls=_tls(
                    pki / "etcd-ca.crt",
                    pki / "client-admin.crt",
                    pki / "client-admin.key",
                ),
            ),
            "UNKNOWN_CA",
        ),
    }
    wrong = {
        caller: seen
        for caller, (seen, reason) in refused.items()
        if seen[0] != 0 or reason not in seen[1]
    }
    assert wrong == {}, f"etcd did not refuse these callers as it must: {wrong}"


def test_etcd_peers_need_a_cert_from_its_ca(local, pki):
    peer = "https://127.0.0.1:2380/members"
    status, reason = _get(peer, tls=_tls(pki / "etcd-ca.crt"))
    assert status == 0, reason
    assert "CERTIFICATE_REQUIRED" in reason
    assert _get("http://127.0.0.1:2380/members")[0] == 0


def test_etcd_metrics_port_is_read_only(local):
    status, body = _get("http://127.0.0.1:2381/health")
    assert status == 200, body
    assert '"health":"true"' in body, body
    # the v3 KV gateway is not served here: no write through the plain port
    status, body = _get("http://127.0.0.1:2381/v3/kv/put", method="POST")
    assert status == 404, (status, body)


def test_the_apiserver_serves_anonymous_callers_health_only(local, settings, pki):
    base = f"https://{settings.node_ip}:{settings.api_port}"
    anonymous = _tls(pki / "server-ca.crt")
    for path in ("/readyz", "/livez", "/healthz"):
        status, body = _get(base + path, tls=anonymous)
        assert (status, body) == (200, "ok"), path
    for path in ("/api", "/version", "/metrics", "/api/v1/namespaces"):
        status, body = _get(base + path, tls=anonymous)
        assert status == 401, f"{path}: {status} {body}"
    admin = _tls(
        pki / "server-ca.crt", pki / "client-admin.crt", pki / "client-admin.key"
    )
    assert _get(base + "/api", tls=admin)[0] == 200, "positive control: admin is served"


def test_the_apiserver_does_not_answer_on_loopback(local, settings):
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", settings.api_port), timeout=5).close()


def test_the_kubelet_refuses_anonymous_callers(local, settings, pki):
    base = f"https://{settings.node_ip}:{settings.kubelet_port}"
    for path in ("/pods", "/healthz", "/metrics", "/configz"):
        status, body = _get(base + path, tls=_tls())
        assert status == 401, f"{path}: {status} {body}"
    admin = _tls(
        None, pki / "client-kube-apiserver.crt", pki / "client-kube-apiserver.key"
    )
    assert _get(base + "/pods", tls=admin)[0] == 200, (
        "positive control: the apiserver's identity"
    )


@pytest.mark.parametrize("port", [10257, 10259])
def test_controller_manager_and_scheduler_serve_anonymous_health_only(local, port):
    base = f"https://127.0.0.1:{port}"
    assert _get(base + "/healthz", tls=_tls()) == (200, "ok")
    status, body = _get(base + "/metrics", tls=_tls())
    assert status == 403, f"/metrics: {status} {body}"


def test_loopback_http_ports_serve_health_and_metrics_only(local):
    assert _get("http://127.0.0.1:10248/healthz") == (200, "ok")
    assert _get("http://127.0.0.1:10256/healthz")[0] == 200
    assert _get("http://127.0.0.1:10249/metrics")[0] == 200
    # the kubelet's API is not on its loopback health port
    assert _get("http://127.0.0.1:10248/pods")[0] == 404


def test_containerd_streams_need_a_token(local):
    for path in ("/", "/exec/not-a-token", "/attach/not-a-token", "/portforward/x"):
        status, body = _get(f"http://127.0.0.1:10010{path}")
        assert status in (0, 400, 404), f"{path}: {status} {body}"


PROBE = textwrap.dedent(
    """
    import socket, sys
    for port in sys.argv[2:]:
        try:
            socket.create_connection((sys.argv[1], int(port)), timeout=3).close()
            print(port, "open")
        except OSError as exc:
            print(port, type(exc).__name__)
    """
)


@pytest.fixture
def outside_interface() -> Iterator[str]:
    with _netns.outside_namespace() as ns:
        yield ns


def test_the_ingress_guard_drops_other_interfaces(local, settings, outside_interface):
    rules = subprocess.run(
        ["iptables", "-t", host.GUARD_TABLE, "-S", host.INGRESS_CHAIN],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert "-j DROP" in rules, rules
    # a port the guard does not cover, on the same address: proves the route works
    control = socket.create_server((settings.node_ip, 0))
    try:
        free = control.getsockname()[1]
        out = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                outside_interface,
                sys.executable,
                "-c",
                PROBE,
                settings.node_ip,
                str(settings.api_port),
                str(settings.kubelet_port),
                str(free),
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    finally:
        control.close()
    seen = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert seen == {
        str(settings.api_port): "TimeoutError",
        str(settings.kubelet_port): "TimeoutError",
        str(free): "open",
    }, out.stdout + out.stderr
