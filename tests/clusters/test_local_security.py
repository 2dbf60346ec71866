"""The local cluster's security settings, checked without a cluster.

We test these aspects: etcd serves clients and peers only over TLS with
client-certificate authentication against its own CA, with metrics alone
left plain on loopback; the apiserver binds the node IP only, reaches etcd
with its own client cert and admits anonymous callers only on the health
paths (through the structured authentication config, without
--anonymous-auth); the PKI's etcd certs chain to etcd's CA with the right
usages; every private key and kubeconfig is created with mode 0600 before its
first byte is written, whatever the umask, never reusing an older file or
following a planted symlink; the ingress guard admits only loopback and pods
to the apiserver and kubelet ports.
"""

from __future__ import annotations

import dataclasses
import http.server
import os
import ssl
import stat
import subprocess
import threading
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from clusters.local import components
from clusters.local import configs
from clusters.local import host
from clusters.local import pki
from clusters.local.settings import LocalSettings
from clusters.machine import processes
from plumbing.gobuilding import BuildSettings


@pytest.fixture
def settings(tmp_path):
    return LocalSettings(
        name="t",
        state_root=tmp_path,
        build=BuildSettings(tmp_path / "cache"),
        node_ip="192.0.2.9",
    )


def _flags(command: tuple[str, ...]) -> dict[str, str]:
    """`--a=b` and `--a b` as {"--a": "b"}; a flag given twice fails the test."""
    flags: dict[str, str] = {}
    args = list(command[1:])
    while args:
        arg = args.pop(0)
        assert arg.startswith("--"), f"stray argument {arg!r}"
        if "=" in arg:
            key, value = arg.split("=", 1)
        elif args and not args[0].startswith("--"):
            key, value = arg, args.pop(0)
        else:
            key, value = arg, ""
        assert key not in flags, f"{key} given twice"
        flags[key] = value
    return flags


def test_etcd_serves_clients_and_peers_with_mutual_tls_only(settings):
    comp = components.etcd(settings, Path("/bin"))
    flags = _flags(comp.command)
    pki_dir = settings.pki_dir
    assert flags["--listen-client-urls"] == "https://127.0.0.1:2379"
    assert flags["--advertise-client-urls"] == "https://127.0.0.1:2379"
    assert flags["--client-cert-auth"] == "true"
    assert flags["--trusted-ca-file"] == str(pki_dir / "etcd-ca.crt")
    assert flags["--cert-file"] == str(pki_dir / "etcd-server.crt")
    assert flags["--key-file"] == str(pki_dir / "etcd-server.key")
    assert flags["--listen-peer-urls"] == "https://127.0.0.1:2380"
    assert flags["--initial-cluster"] == "default=https://127.0.0.1:2380"
    assert flags["--peer-client-cert-auth"] == "true"
    assert flags["--peer-trusted-ca-file"] == str(pki_dir / "etcd-ca.crt")
    assert flags["--peer-cert-file"] == str(pki_dir / "etcd-peer.crt")
    # the one plain-http listener: loopback, read-only metrics and health
    assert flags["--listen-metrics-urls"] == "http://127.0.0.1:2381"
    urls = [
        v for k, v in flags.items() if k.endswith("-urls") or k == "--initial-cluster"
    ]
    assert [u for u in urls if "http://" in u] == ["http://127.0.0.1:2381"]
    assert not any(k.startswith(("--auto-tls", "--peer-auto-tls")) for k in flags)


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"health":"true","reason":""}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_etcd_probe_presents_a_client_cert_etcd_requires(settings):
    """An etcd stand-in that demands a client cert from etcd's CA answers the probe."""
    pki.make_all(
        directory=settings.pki_dir,
        node_name=settings.node_name,
        server=settings.server,
        sans=settings.sans(),
    )
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(
        settings.pki_dir / "etcd-server.crt", settings.pki_dir / "etcd-server.key"
    )
    server_tls.load_verify_locations(settings.pki_dir / "etcd-ca.crt")
    server_tls.verify_mode = ssl.CERT_REQUIRED
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    httpd.socket = server_tls.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        port = httpd.server_address[1]
        s = dataclasses.replace(settings, etcd_client_port=port)
        seen = components.etcd(s, Path("/bin")).probe()
        assert seen, f"the probe was refused: {seen!r}"
        anonymous = processes.http_probe(
            f"https://127.0.0.1:{port}/health",
            tls=processes.server_context(ca=settings.pki_dir / "etcd-ca.crt"),
        )()
        assert not anonymous, "the stand-in must refuse a caller without a cert"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_apiserver_binds_the_node_ip_and_uses_etcd_over_mtls(settings):
    authn = settings.state_dir / "config" / "apiserver-authentication.yaml"
    flags = _flags(components.apiserver(settings, Path("/bin"), authn).command)
    assert flags["--bind-address"] == "192.0.2.9"
    assert flags["--advertise-address"] == "192.0.2.9"
    assert flags["--etcd-servers"] == "https://127.0.0.1:2379"
    assert flags["--etcd-cafile"] == str(settings.pki_dir / "etcd-ca.crt")
    assert flags["--etcd-certfile"] == str(
        settings.pki_dir / "apiserver-etcd-client.crt"
    )
    assert flags["--etcd-keyfile"] == str(
        settings.pki_dir / "apiserver-etcd-client.key"
    )
    assert flags["--authentication-config"] == str(authn)
    # the apiserver refuses --anonymous-auth next to a config with an anonymous section
    assert "--anonymous-auth" not in flags
    assert flags["--authorization-mode"] == "Node,RBAC"


def test_anonymous_is_allowed_only_on_the_health_paths():
    conf = yaml.safe_load(configs.authentication_config())
    assert conf == {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthenticationConfiguration",
        "anonymous": {
            "enabled": True,
            "conditions": [
                {"path": "/livez"},
                {"path": "/readyz"},
                {"path": "/healthz"},
            ],
        },
    }


def test_the_kubelet_refuses_anonymous_and_has_no_read_only_port(settings):
    conf = yaml.safe_load(configs.kubelet_config(settings))
    assert conf["authentication"]["anonymous"] == {"enabled": False}
    assert conf["authorization"] == {"mode": "Webhook"}
    assert conf["readOnlyPort"] == 0
    assert (conf["address"], conf["port"]) == ("192.0.2.9", 10250)
    assert conf["healthzBindAddress"] == "127.0.0.1"


def test_containerd_streams_on_a_fixed_loopback_port(settings):
    import tomllib

    text = configs.containerd_config(
        settings, runc=Path("/r"), shim=Path("/s"), cni_bin=Path("/c")
    )
    cri = tomllib.loads(text)["plugins"]["io.containerd.grpc.v1.cri"]
    assert cri == {"stream_server_address": "127.0.0.1", "stream_server_port": "10010"}


def _usages(cert: x509.Certificate) -> set[x509.ObjectIdentifier]:
    return set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)


def test_etcd_certs_chain_to_etcds_own_ca(settings):
    pki.make_all(
        directory=settings.pki_dir,
        node_name=settings.node_name,
        server=settings.server,
        sans=settings.sans(),
    )

    def load(stem: str) -> x509.Certificate:
        return x509.load_pem_x509_certificate(
            (settings.pki_dir / f"{stem}.crt").read_bytes()
        )

    etcd_ca, client_ca = load("etcd-ca"), load("client-ca")
    both = {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
    for stem, usages in (
        ("etcd-server", both),
        ("etcd-peer", both),
        ("apiserver-etcd-client", {ExtendedKeyUsageOID.CLIENT_AUTH}),
        ("etcd-healthcheck-client", {ExtendedKeyUsageOID.CLIENT_AUTH}),
    ):
        cert = load(stem)
        cert.verify_directly_issued_by(etcd_ca)
        assert _usages(cert) == usages, stem
    # etcd trusts its own CA only: the client CA (which signs approved CSRs) is another
    assert etcd_ca.subject != client_ca.subject
    sans = (
        load("etcd-server")
        .extensions.get_extension_for_class(x509.SubjectAlternativeName)
        .value
    )
    assert [str(ip) for ip in sans.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]


def test_every_secret_is_0600_from_the_moment_it_exists(settings, monkeypatch):
    """Each secret's descriptor is inspected before its first byte is written."""
    opened: dict[str, tuple[int, int]] = {}
    real_open = pki.open_private

    def observed(path: Path) -> int:
        fd = real_open(path)
        st = os.fstat(fd)
        opened[path.name] = (stat.S_IMODE(st.st_mode), st.st_size)
        return fd

    monkeypatch.setattr(pki, "open_private", observed)
    old_umask = os.umask(0)  # the most permissive umask must not widen the mode
    try:
        pki.make_all(
            directory=settings.pki_dir,
            node_name=settings.node_name,
            server=settings.server,
            sans=settings.sans(),
        )
    finally:
        os.umask(old_umask)
    secrets = {
        p.name
        for p in settings.pki_dir.iterdir()
        if p.suffix in (".key", ".kubeconfig")
    }
    assert "sa.key" in secrets
    assert "apiserver-etcd-client.key" in secrets
    assert "admin.kubeconfig" in secrets
    assert set(opened) == secrets, "every secret goes through open_private"
    assert {name: v for name, v in opened.items() if v != (0o600, 0)} == {}
    for p in settings.pki_dir.iterdir():
        mode = stat.S_IMODE(p.stat().st_mode)
        if p.name in secrets:
            assert mode == 0o600, p.name
    assert stat.S_IMODE(settings.pki_dir.stat().st_mode) == 0o700


def test_a_secret_never_reuses_an_older_file(tmp_path):
    path = tmp_path / "x.key"
    path.write_text("old")
    path.chmod(0o644)
    reader = path.open()  # someone who opened the old, world-readable file
    pki.write_private(path, b"secret")
    assert reader.read() == "old", "the old inode must not receive the secret"
    reader.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b"secret"


def test_a_secret_never_follows_a_planted_symlink(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    link = tmp_path / "x.key"
    link.symlink_to(victim)
    pki.write_private(link, b"secret")
    assert victim.read_text() == "untouched"
    assert not link.is_symlink()
    assert stat.S_IMODE(link.stat().st_mode) == 0o600


def test_the_ingress_guard_admits_loopback_and_pods_only(settings):
    rules = host.ingress_rules(settings)
    for port in ("6443", "10250"):
        mine = [r for r in rules if r[:4] == ["-p", "tcp", "--dport", port]]
        assert [r[4:] for r in mine[:2]] == [
            ["-i", "lo", "-j", "RETURN"],
            ["-i", "cni0", "-s", "10.244.0.0/16", "-j", "RETURN"],
        ]
        assert mine[2][-2:] == ["-j", "DROP"], "everything else is dropped"
        assert len(mine) == 3
    assert len(rules) == 6
    # the chain carries the prefix `down` and leftovers() look for
    assert host.INGRESS_CHAIN.startswith(host.OWNED_CHAIN_PREFIXES)


def _saved(guards_in_mangle: bool, *, first: str = "") -> list[str]:
    """`iptables -t mangle -S` as it reads with (or without) the guards installed."""
    lines = ["-P PREROUTING ACCEPT", "-P INPUT ACCEPT", "-P FORWARD ACCEPT"]
    if first:
        lines += [f"-A FORWARD {first}", f"-A INPUT {first}"]
    if guards_in_mangle:
        lines += [
            "-N WPC-EGRESS",
            "-N WPC-INGRESS",
            "-A FORWARD -j WPC-EGRESS",
            "-A INPUT -j WPC-INGRESS",
            '-A WPC-EGRESS -s 10.244.0.0/16 ! -o cni0 -m comment --comment "x" -j DROP',
        ]
        for port in ("6443", "10250"):
            lines += [
                f"-A WPC-INGRESS -p tcp -m tcp --dport {port} -i lo -j RETURN",
                f"-A WPC-INGRESS -p tcp -m tcp --dport {port} -i cni0 -j RETURN",
                f'-A WPC-INGRESS -p tcp -m tcp --dport {port} -m comment --comment "y" -j DROP',
            ]
    return lines


def test_the_guards_are_checked_first_in_mangle(settings):
    assert host.guard_problems_in(_saved(True), settings) == []
    # df2fb01 kept the guards in filter, behind CNI-FORWARD: mangle had neither
    missing = host.guard_problems_in(_saved(False), settings)
    assert len(missing) == 4, missing
    assert "mangle FORWARD does not jump to WPC-EGRESS first" in missing[0]
    # a rule someone put ahead of the jump is named
    ahead = host.guard_problems_in(_saved(True, first="-j ACCEPT"), settings)
    assert ahead == [
        "mangle FORWARD does not jump to WPC-EGRESS first (its first rule: "
        "-A FORWARD -j ACCEPT)",
        "mangle INPUT does not jump to WPC-INGRESS first (its first rule: "
        "-A INPUT -j ACCEPT)",
    ]


def test_the_guards_are_installed_in_mangle_and_jumped_to_first(settings, monkeypatch):
    ran: list[list[str]] = []

    def record(argv: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        ran.append(argv)
        # `-D` of an old jump finds none; everything else succeeds
        return subprocess.CompletedProcess(argv, 1 if "-D" in argv else 0, "", "")

    monkeypatch.setattr(host.commands, "attempt", record)
    monkeypatch.setattr(host.commands, "capture", record)
    host.install_guards(settings)
    assert all(argv[:3] == ["iptables", "-t", "mangle"] for argv in ran), ran
    inserts = [argv[3:] for argv in ran if "-I" in argv]
    assert inserts == [
        ["-I", "FORWARD", "1", "-j", "WPC-EGRESS"],
        ["-I", "INPUT", "1", "-j", "WPC-INGRESS"],
    ]
