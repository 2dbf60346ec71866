"""We test this aspect of the self-signed certificate start (no network):

- signed as it comes, the certificate names one subject and issuer, certifies
  the key that signed it and is valid from and until the given instants.
"""

from __future__ import annotations

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from plumbing import certificates


def test_a_self_signed_certificate_is_issued_by_its_own_name_and_key():
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "wpc-test")])
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    end = start + datetime.timedelta(days=1)

    cert = certificates.self_signed(key, name, valid_from=start, valid_until=end).sign(
        key, hashes.SHA256()
    )

    assert cert.subject == cert.issuer == name
    assert cert.public_key() == key.public_key()
    cert.verify_directly_issued_by(cert)
    assert (cert.not_valid_before_utc, cert.not_valid_after_utc) == (start, end)
