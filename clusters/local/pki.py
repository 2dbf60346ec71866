"""Certificates and kubeconfigs for the local cluster, made with `cryptography`.

The layout mirrors what hack/local-up-cluster.sh sets up (facts, not code):
a server CA for the apiserver's serving certificate, a client CA for every
client identity, and one kubeconfig per identity. The service-account key
both signs and verifies tokens.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

VALIDITY = datetime.timedelta(days=365)


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


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8
            if isinstance(key, ec.EllipticCurvePrivateKey)
            else serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)


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
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now())
        .not_valid_after(_now() + VALIDITY)
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
    server: bool = False,
    sans: tuple[str, ...] = (),
) -> None:
    """Write `<stem>.crt`/`.key` signed by CA `<ca>`; server certs get the SANs."""
    ca_cert, ca_key = _load_ca(directory, ca)
    key = _key()
    usage = (
        ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    )
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(cn, org))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now())
        .not_valid_after(_now() + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
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
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)


def make_all(
    *, directory: Path, node_name: str, server: str, sans: tuple[str, ...]
) -> None:
    """Create the CAs, serving and client certificates, SA key and kubeconfigs."""
    directory.mkdir(parents=True, exist_ok=True)
    make_ca(directory, "server-ca")
    make_ca(directory, "client-ca")
    make_leaf(
        directory,
        ca="server-ca",
        stem="serving-kube-apiserver",
        cn="kube-apiserver",
        server=True,
        sans=sans,
    )
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
