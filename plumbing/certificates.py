"""The start of a self-signed X.509 certificate, for the TLS the project serves itself.

A local cluster's certificate authorities (`clusters.local.pki`) and a test
webhook's serving certificate (`conformance.harness.stage.injecting`) are each
issued by their own key: `self_signed` sets what every such certificate has
(the name as subject and issuer, the key's public half, a random serial, the
validity window); its caller adds the extensions of its use and signs.
"""

from __future__ import annotations

import datetime

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric.types import (
    CertificateIssuerPrivateKeyTypes,
)


def self_signed(
    key: CertificateIssuerPrivateKeyTypes,
    name: x509.Name,
    *,
    valid_from: datetime.datetime,
    valid_until: datetime.datetime,
) -> x509.CertificateBuilder:
    """A certificate builder for `name`, issued by `name`, certifying `key`."""
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid_from)
        .not_valid_after(valid_until)
    )
