"""AWS Signature Version 4 for S3 requests, as pure functions of their inputs.

Kept apart from the HTTP client so each step (canonical request, string to
sign, signing key) can be checked against AWS's published example vectors
without a clock or a socket. Only the header form is implemented: the client
always signs an `Authorization` header and never presigns URLs.

S3 differs from the other AWS services in one respect that matters here: the
path is URI-encoded once, not twice (AWS SigV4 docs, "Create a canonical
request": "each path segment must be URI-encoded twice … except for Amazon S3").
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Iterable
from collections.abc import Mapping
from urllib.parse import quote

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
"""Payload hash of an empty body (GET, HEAD, an empty PUT)."""


def uri_encode(text: str, *, keep_slash: bool) -> str:
    """Percent-encode all but the unreserved characters (RFC 3986), as SigV4 says.

    `quote` already keeps letters, digits and `_.-~`; `/` is kept only in the
    path, never in a query key or value.
    """
    return quote(text, safe="/" if keep_slash else "")


def canonical_query(query: Iterable[tuple[str, str]]) -> str:
    """Encode each name and value, then sort by name and by value."""
    pairs = sorted(
        (uri_encode(k, keep_slash=False), uri_encode(v, keep_slash=False))
        for k, v in query
    )
    return "&".join(f"{k}={v}" for k, v in pairs)


def _canonical_headers(headers: Mapping[str, str]) -> tuple[str, str]:
    folded = {
        name.lower().strip(): " ".join(value.split()) for name, value in headers.items()
    }
    names = sorted(folded)
    block = "".join(f"{n}:{folded[n]}\n" for n in names)
    return block, ";".join(names)


@dataclasses.dataclass(frozen=True)
class Request:
    """What the signature covers of one request: the parts of its canonical form.

    `path` is the raw (unencoded) object path. `headers` must already hold what the
    server will check against the signature: `host`, `x-amz-date` (equal to the
    signing date) and, for S3, `x-amz-content-sha256` (equal to `payload_hash`).
    """

    method: str
    path: str
    query: Iterable[tuple[str, str]]
    headers: Mapping[str, str]
    payload_hash: str


def canonical_request(request: Request) -> str:
    """Return the canonical request."""
    block, signed = _canonical_headers(request.headers)
    return "\n".join(
        (
            request.method.upper(),
            uri_encode(request.path or "/", keep_slash=True),
            canonical_query(request.query),
            block,
            signed,
            request.payload_hash,
        )
    )


def scope(*, amz_date: str, region: str, service: str) -> str:
    """Credential scope `<yyyymmdd>/<region>/<service>/aws4_request`."""
    return f"{amz_date[:8]}/{region}/{service}/aws4_request"


def string_to_sign(*, amz_date: str, credential_scope: str, canonical: str) -> str:
    """The four-line string the signature is computed over."""
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    return f"{ALGORITHM}\n{amz_date}\n{credential_scope}\n{digest}"


def signing_key(*, secret_key: str, date: str, region: str, service: str) -> bytes:
    """Derive the day-, region- and service-scoped key from the secret key."""
    key = ("AWS4" + secret_key).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def authorization(
    request: Request,
    *,
    access_key: str,
    secret_key: str,
    region: str,
    amz_date: str,
    service: str = "s3",
) -> str:
    """Return the `Authorization` header value signing every header of `request`."""
    canonical = canonical_request(request)
    cred_scope = scope(amz_date=amz_date, region=region, service=service)
    to_sign = string_to_sign(
        amz_date=amz_date, credential_scope=cred_scope, canonical=canonical
    )
    key = signing_key(
        secret_key=secret_key, date=amz_date[:8], region=region, service=service
    )
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    _, signed = _canonical_headers(request.headers)
    return (
        f"{ALGORITHM} Credential={access_key}/{cred_scope}, "
        f"SignedHeaders={signed}, Signature={signature}"
    )
