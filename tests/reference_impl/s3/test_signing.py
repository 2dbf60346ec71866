"""SigV4 signing against AWS's published example vectors.

We test these aspects:
- the signing-key derivation (AWS "derive a signing key" example, IAM scope);
- the four S3 header-auth examples of "Signature Calculations for the
  Authorization Header" (GET with Range, PUT with a `$` key and a body,
  GET ?lifecycle, GET ?max-keys=2&prefix=J), checked through the canonical
  request, the string to sign and the final Authorization header;
- the encodings the examples do not reach (unreserved characters, `/`).
"""

from __future__ import annotations

import hashlib

import pytest

from reference_impl.s3 import signing

ACCESS = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
DATE = "20130524T000000Z"
HOST = "examplebucket.s3.amazonaws.com"


def _headers(payload_hash: str, **extra: str) -> dict[str, str]:
    return {
        "Host": HOST,
        "x-amz-date": DATE,
        "x-amz-content-sha256": payload_hash,
        **extra,
    }


def test_signing_key_matches_the_published_derivation():
    key = signing.signing_key(
        secret_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        date="20120215",
        region="us-east-1",
        service="iam",
    )
    assert (
        key.hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
    )


def test_get_object_with_range_matches_canonical_request_and_string_to_sign():
    canonical = signing.canonical_request(
        signing.Request(
            method="GET",
            path="/test.txt",
            query=[],
            headers=_headers(signing.EMPTY_SHA256, Range="bytes=0-9"),
            payload_hash=signing.EMPTY_SHA256,
        )
    )
    assert canonical == (
        "GET\n/test.txt\n\n"
        f"host:{HOST}\nrange:bytes=0-9\n"
        f"x-amz-content-sha256:{signing.EMPTY_SHA256}\nx-amz-date:{DATE}\n\n"
        "host;range;x-amz-content-sha256;x-amz-date\n"
        f"{signing.EMPTY_SHA256}"
    )
    to_sign = signing.string_to_sign(
        amz_date=DATE,
        credential_scope="20130524/us-east-1/s3/aws4_request",
        canonical=canonical,
    )
    assert to_sign.endswith(
        "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"
    )


CASES = [
    pytest.param(
        "GET", "/test.txt", [], {"Range": "bytes=0-9"}, b"",
        "host;range;x-amz-content-sha256;x-amz-date",
        "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
        id="get-object-range",
    ),
    pytest.param(
        "PUT", "/test$file.text", [],
        {"Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"},
        b"Welcome to Amazon S3.",
        "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
        "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
        id="put-object-escaped-key",
    ),
    pytest.param(
        "GET", "/", [("lifecycle", "")], {}, b"",
        "host;x-amz-content-sha256;x-amz-date",
        "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
        id="get-bucket-lifecycle",
    ),
    pytest.param(
        "GET", "/", [("max-keys", "2"), ("prefix", "J")], {}, b"",
        "host;x-amz-content-sha256;x-amz-date",
        "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
        id="list-objects-sorted-query",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "path", "query", "extra", "body", "signed_headers", "signature"), CASES
)
def test_authorization_header_matches_the_published_s3_examples(
    method, path, query, extra, body, signed_headers, signature
):
    payload_hash = hashlib.sha256(body).hexdigest()
    header = signing.authorization(
        signing.Request(
            method=method,
            path=path,
            query=query,
            headers=_headers(payload_hash, **extra),
            payload_hash=payload_hash,
        ),
        access_key=ACCESS,
        secret_key=SECRET,
        region="us-east-1",
        amz_date=DATE,
    )
    assert header == (
        f"AWS4-HMAC-SHA256 Credential={ACCESS}/20130524/us-east-1/s3/aws4_request, "
        f"SignedHeaders={signed_headers}, Signature={signature}"
    )


def test_uri_encode_keeps_unreserved_characters_and_slash_only_in_paths():
    assert signing.uri_encode("a-b_c.d~e/f g", keep_slash=True) == "a-b_c.d~e/f%20g"
    assert signing.uri_encode("a/b+c=é", keep_slash=False) == "a%2Fb%2Bc%3D%C3%A9"


def test_canonical_query_sorts_encoded_names_and_values():
    query = [("prefix", "a b"), ("list-type", "2"), ("delimiter", "/")]
    assert signing.canonical_query(query) == ("delimiter=%2F&list-type=2&prefix=a%20b")
