"""The S3 client against the real, built S3 server on 127.0.0.1.

We test these aspects:
- the bucket made as a directory at start is a bucket (HEAD, PUT, GET);
- round trips: bytes and a 1 MiB file streamed both ways, keys with slashes,
  spaces and non-ASCII characters; HEAD reports size and ETag;
- real 404s: a missing key (NoSuchKey) and a missing bucket (NoSuchBucket);
- SigV4 is enforced: a wrong secret and an unknown access key are refused;
- ensure_bucket creates a bucket once;
- the requests minio-go (Argo's client) also makes: GetBucketLocation and
  ListObjectsV2;
- the binary carries the pinned version.

All need the built server; they skip, saying how to build it, when it is absent.
"""

from __future__ import annotations

import hashlib
import subprocess
import uuid

import pytest

from reference_impl.artifacts import names
from reference_impl.artifacts import pins
from reference_impl.s3.errors import S3Error
from reference_impl.s3.errors import S3NotFoundError

pytestmark = pytest.mark.slow


def _key(suffix: str) -> str:
    return f"test-{uuid.uuid4().hex[:8]}/{suffix}"


def test_the_bucket_created_at_start_accepts_put_get_and_head(s3_server):
    client = s3_server.client()
    assert client.bucket_exists(names.BUCKET)
    key = _key("hello.txt")
    etag = client.put_object(
        bucket=names.BUCKET, key=key, body=b"hello", content_type="text/plain"
    )
    assert etag == hashlib.md5(b"hello").hexdigest()  # S3's ETag of a simple PUT
    assert client.get_object(bucket=names.BUCKET, key=key) == b"hello"
    info = client.head_object(bucket=names.BUCKET, key=key)
    assert (info.size, info.etag, info.content_type) == (5, etag, "text/plain")


def test_a_file_and_an_awkward_key_round_trip_byte_for_byte(s3_server, tmp_path):
    client = s3_server.client()
    data = hashlib.sha256(b"seed").digest() * (1024 * 1024 // 32)
    source = tmp_path / "main.tgz"
    source.write_bytes(data)
    key = _key("dir with space/ünï $+=.tgz")
    client.put_object(bucket=names.BUCKET, key=key, body=source)
    dest = tmp_path / "back.tgz"
    with dest.open("wb") as out:
        assert client.download_object(bucket=names.BUCKET, key=key, out=out) == len(
            data
        )
    assert dest.read_bytes() == data


def test_a_missing_key_is_a_real_404_naming_the_key(s3_server):
    key = _key("absent")
    with pytest.raises(S3NotFoundError) as caught:
        s3_server.client().get_object(bucket=names.BUCKET, key=key)
    assert (caught.value.status, caught.value.code) == (404, "NoSuchKey")
    assert key in str(caught.value)
    with pytest.raises(S3NotFoundError):
        s3_server.client().head_object(bucket=names.BUCKET, key=key)


def test_a_missing_bucket_is_a_real_404(s3_server):
    with pytest.raises(S3NotFoundError) as caught:
        s3_server.client().get_object(bucket="no-such-bucket", key="k")
    assert caught.value.code == "NoSuchBucket"


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        pytest.param(
            {"secret_key": "wrong"}, "SignatureDoesNotMatch", id="wrong-secret"
        ),
        # AWS says 403 InvalidAccessKeyId; versitygw says 404 XAdminUserNotFound.
        pytest.param(
            {"access_key": "nobody"}, "XAdminUserNotFound", id="unknown-access-key"
        ),
    ],
)
def test_requests_with_wrong_credentials_are_refused_and_not_taken_for_absent(
    s3_server, overrides, code
):
    with pytest.raises(S3Error) as caught:
        s3_server.client(**overrides).get_object(bucket=names.BUCKET, key=_key("x"))
    assert caught.value.code == code
    assert caught.value.status in (403, 404)
    assert not isinstance(caught.value, S3NotFoundError)


def test_ensure_bucket_creates_a_bucket_once(s3_server):
    client = s3_server.client()
    bucket = f"wpc-{uuid.uuid4().hex[:8]}"
    assert client.ensure_bucket(bucket) is True
    assert client.ensure_bucket(bucket) is False
    client.put_object(bucket=bucket, key="k", body=b"v")
    assert client.get_object(bucket=bucket, key="k") == b"v"


def test_the_server_answers_the_bucket_requests_minio_go_makes(s3_server):
    client = s3_server.client()
    prefix = _key("")
    client.put_object(bucket=names.BUCKET, key=prefix + "a.txt", body=b"a")
    # The client has no list or location call; its signed request seam is used
    # to probe the server for what Argo's minio-go needs.
    with client._request(
        operation="GetBucketLocation", method="GET", bucket=names.BUCKET,
        query=[("location", "")],
    ) as response:  # fmt: skip
        assert b"LocationConstraint" in response.read()
    with client._request(
        operation="ListObjectsV2", method="GET", bucket=names.BUCKET,
        query=[("list-type", "2"), ("prefix", prefix)],
    ) as response:  # fmt: skip
        listing = response.read().decode()
    assert f"<Key>{prefix}a.txt</Key>" in listing


def test_the_binary_reports_the_pinned_version(s3_binary):
    out = subprocess.run(
        [str(s3_binary), "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    ).stdout
    assert pins.SERVER_VERSION in out
