"""Certificates and kubeconfigs for the local cluster, made with `cryptography`.

The layout mirrors what hack/local-up-cluster.sh sets up (facts, not code):
a server CA for the apiserver's serving certificate, a client CA for every
client identity, and one kubeconfig per identity. The service-account key
both signs and verifies tokens.

etcd has a CA of its own. etcd authorises every client its CA vouches for
with full access, and the controller manager signs approved CSRs with the
client CA's key; trusting the client CA would hand etcd to anyone who gets a
CSR approved. Only the apiserver and our health probe hold etcd client certs.

Secrets (private keys, kubeconfigs) are created with mode 0600 at open time,
never written first and restricted afterwards: there is no moment at which
another local user could read them.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

from plumbing import certificates

VALIDITY = datetime.timedelta(days=365)
PRIVATE_MODE = 0o600
"""Mode of every private key and kubeconfig: readable by root (their owner) only."""
PRIVATE_DIR_MODE = 0o700

Usage = Literal["client", "server", "peer"]
"""What a leaf certificate is for; `peer` serves and connects (etcd's server and peer
certs: etcd also dials itself with its serving cert for its gRPC gateway)."""
_USAGES = {
    "client": [ExtendedKeyUsageOID.CLIENT_AUTH],
    "server": [ExtendedKeyUsageOID.SERVER_AUTH],
    "peer": [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH],
}
ETCD_CA = "etcd-ca"
ETCD_SANS = ("localhost", "127.0.0.1")


@dataclass(frozen=True)
class Identity:
    """A client identity: its file stem, common name and organisation."""

    stem: str
    cn: str
    org: str = ""


def client_identities(node_name: str) -> tuple[Identity, ...]:
    """Every client certificate the cluster needs (CN/O as Kubernetes' RBAC expects)."""
    return (
        Identity("admin", "kubernetes-admin", "system:masters"),
        Identity("controller", "system:kube-controller-manager"),
        Identity("scheduler", "system:kube-scheduler"),
        Identity("kube-proxy", "system:kube-proxy"),
        Identity("kubelet", f"system:node:{node_name}", "system:nodes"),
        Identity("kube-apiserver", "kube-apiserver"),
    )


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def open_private(path: Path) -> int:
    """Create `path` afresh with mode 0600 and return a descriptor open for writing.

    An existing file is unlinked first rather than truncated: truncating keeps the
    old inode, its mode and any descriptor someone else already holds on it.
    O_EXCL refuses to follow a symlink planted at `path`. The mode is given to
    open(2) itself, so the file is never more readable, even before its first byte.
    """
    path.unlink(missing_ok=True)
    return os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_MODE
    )


def write_private(path: Path, data: bytes) -> None:
    """Write a secret (key or kubeconfig) into a file created with mode 0600."""
    fd = open_private(path)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    write_private(
        path,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8
            if isinstance(key, ec.EllipticCurvePrivateKey)
            else serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        ),
    )


def _name(cn: str, org: str = "") -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)


def make_ca(directory: Path, stem: str) -> None:
    """Write `<stem>.crt` and `<stem>.key`, a self-signed CA."""
    key = _key()
    name = _name(f"wpc-{stem}")
    cert = (
        certificates.self_signed(
            key, name, valid_from=_now(), valid_until=_now() + VALIDITY
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    (directory / f"{stem}.crt").write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
    )
    _write_key(directory / f"{stem}.key", key)


def _load_ca(
    directory: Path, stem: str
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    cert = x509.load_pem_x509_certificate((directory / f"{stem}.crt").read_bytes())
    key = serialization.load_pem_private_key(
        (directory / f"{stem}.key").read_bytes(), None
    )
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return cert, key


def make_leaf(
    directory: Path,
    *,
    ca: str,
    stem: str,
    cn: str,
    org: str = "",
    usage: Usage = "client",
    sans: tuple[str, ...] = (),
) -> None:
    """Write `<stem>.crt`/`.key` signed by CA `<ca>`, for `usage`, with the SANs."""
    ca_cert, ca_key = _load_ca(directory, ca)
    key = _key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(cn, org))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now())
        .not_valid_after(_now() + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(_USAGES[usage]), critical=False)
    )
    if sans:
        names: list[x509.GeneralName] = []
        for san in sans:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(san)))
            except ValueError:
                names.append(x509.DNSName(san))
        builder = builder.add_extension(
            x509.SubjectAlternativeName(names), critical=False
        )
    cert = builder.sign(ca_key, hashes.SHA256())
    (directory / f"{stem}.crt").write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
    )
    _write_key(directory / f"{stem}.key", key)


def make_service_account_key(directory: Path) -> None:
    """Write sa.key / sa.pub (RSA: the apiserver signs service-account tokens with it)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write_key(directory / "sa.key", key)
    (directory / "sa.pub").write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def make_etcd(directory: Path) -> None:
    """etcd's own CA, its serving and peer certs, and its two client certs."""
    make_ca(directory, ETCD_CA)
    for stem in ("etcd-server", "etcd-peer"):
        make_leaf(
            directory, ca=ETCD_CA, stem=stem, cn=stem, usage="peer", sans=ETCD_SANS
        )
    # The apiserver is etcd's one real client; the health probe gets its own cert
    # so its identity shows apart in etcd's logs.
    for stem in ("apiserver-etcd-client", "etcd-healthcheck-client"):
        make_leaf(directory, ca=ETCD_CA, stem=stem, cn=stem)


def write_kubeconfig(
    *, path: Path, server: str, ca: Path, cert: Path, key: Path, user: str
) -> None:
    """Write a client-certificate kubeconfig (file paths, so rotation needs no rewrite)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "wpc",
                "cluster": {"server": server, "certificate-authority": str(ca)},
            }
        ],
        "users": [
            {
                "name": user,
                "user": {"client-certificate": str(cert), "client-key": str(key)},
            }
        ],
        "contexts": [{"name": "wpc", "context": {"cluster": "wpc", "user": user}}],
        "current-context": "wpc",
    }
    # It names the key by path only, but it is a credential all the same.
    write_private(path, yaml.safe_dump(config, sort_keys=False).encode())


def make_all(
    *, directory: Path, node_name: str, server: str, sans: tuple[str, ...]
) -> None:
    """Create the CAs, serving and client certificates, SA key and kubeconfigs."""
    directory.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    directory.chmod(PRIVATE_DIR_MODE)  # mkdir's mode loses to an existing directory
    make_ca(directory, "server-ca")
    make_ca(directory, "client-ca")
    make_leaf(
        directory,
        ca="server-ca",
        stem="serving-kube-apiserver",
        cn="kube-apiserver",
        usage="server",
        sans=sans,
    )
    make_etcd(directory)
    for ident in client_identities(node_name):
        make_leaf(
            directory,
            ca="client-ca",
            stem=f"client-{ident.stem}",
            cn=ident.cn,
            org=ident.org,
        )
        write_kubeconfig(
            path=directory / f"{ident.stem}.kubeconfig",
            server=server,
            ca=directory / "server-ca.crt",
            cert=directory / f"client-{ident.stem}.crt",
            key=directory / f"client-{ident.stem}.key",
            user=ident.cn,
        )
    make_service_account_key(directory)
