"""The S3 client against a scripted loopback server (no S3 server needed).

We test these aspects:
- what goes over the wire: path-style target with the key percent-encoded,
  the payload hash, the Host header, and a signature that covers exactly the
  headers sent (recomputed here from the recorded request);
- uploads from bytes and streamed from a file (explicit Content-Length);
- HEAD parsing; ensure_bucket's three outcomes (exists, created, lost race);
- errors: 404 -> S3NotFoundError, others -> S3Error, each naming the
  operation, bucket, key, status, the server's Code/Message and its body;
  no server at all -> S3Error with status None.
"""

from __future__ import annotations

import datetime
import hashlib
import socket
from urllib.parse import unquote
from urllib.parse import urlsplit

import pytest

from reference_impl.s3 import signing
from reference_impl.s3.client import S3Client
from reference_impl.s3.client import S3Config
from reference_impl.s3.errors import S3Error
from reference_impl.s3.errors import S3NotFoundError
from tests.reference_impl.s3 import fakes3
from tests.reference_impl.s3.fakes3 import Recorded
from tests.reference_impl.s3.fakes3 import Reply

NOW = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
NO_SUCH_KEY = (
    b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code>'
    b"<Message>The specified key does not exist.</Message></Error>"
)


@pytest.fixture
def fake():
    yield from fakes3.serve()


@pytest.fixture
def client(fake):
    config = S3Config(
        endpoint=fake.endpoint, access_key="ak", secret_key="sk", insecure=True
    )
    return S3Client(config, clock=lambda: NOW)


def _assert_signed(request: Recorded, *, secret: str = "sk") -> None:
    """Recompute the signature from what the server received."""
    auth = request.headers["authorization"]
    signed_names = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    split = urlsplit(request.target)
    query = [tuple(p.split("=", 1)) for p in split.query.split("&") if p]
    expected = signing.authorization(
        signing.Request(
            method=request.method,
            path=unquote(split.path),
            query=[(unquote(k), unquote(v)) for k, v in query],
            headers={name: request.headers[name] for name in signed_names},
            payload_hash=request.headers["x-amz-content-sha256"],
        ),
        access_key="ak",
        secret_key=secret,
        region="us-east-1",
        amz_date=request.headers["x-amz-date"],
    )
    assert auth == expected
    assert request.headers["x-amz-date"] == "20260102T030405Z"


def test_put_object_sends_an_encoded_path_style_target_signed_over_the_payload(
    fake, client
):
    fake.replies.append(Reply(200, {"ETag": '"abc"'}))
    etag = client.put_object(bucket="bkt", key="dir/a b$.txt", body=b"payload")
    assert etag == "abc"
    (sent,) = fake.requests
    assert (sent.method, sent.target) == ("PUT", "/bkt/dir/a%20b%24.txt")
    assert sent.body == b"payload"
    assert sent.headers["host"] == fake.endpoint
    assert (
        sent.headers["x-amz-content-sha256"] == hashlib.sha256(b"payload").hexdigest()
    )
    _assert_signed(sent)


def test_put_object_streams_a_file_with_its_length_and_hash(fake, client, tmp_path):
    data = bytes(range(256)) * 1000
    source = tmp_path / "art.tgz"
    source.write_bytes(data)
    fake.replies.append(Reply(200, {"ETag": '"e"'}))
    client.put_object(bucket="bkt", key="k", body=source)
    (sent,) = fake.requests
    assert sent.body == data
    assert sent.headers["content-length"] == str(len(data))
    assert sent.headers["x-amz-content-sha256"] == hashlib.sha256(data).hexdigest()
    _assert_signed(sent)


def test_get_object_and_download_object_return_the_body(fake, client, tmp_path):
    fake.replies += [Reply(200, body=b"content"), Reply(200, body=b"streamed")]
    assert client.get_object(bucket="bkt", key="k") == b"content"
    dest = tmp_path / "out"
    with dest.open("wb") as out:
        assert client.download_object(bucket="bkt", key="k", out=out) == len(
            b"streamed"
        )
    assert dest.read_bytes() == b"streamed"
    for sent in fake.requests:
        assert sent.headers["x-amz-content-sha256"] == signing.EMPTY_SHA256
        _assert_signed(sent)


def test_head_object_reports_size_etag_and_type(fake, client):
    fake.replies.append(
        Reply(
            200, {"Content-Length": "42", "ETag": '"tag"', "Content-Type": "text/plain"}
        )
    )
    info = client.head_object(bucket="bkt", key="k")
    assert (info.size, info.etag, info.content_type) == (42, "tag", "text/plain")


def test_a_missing_key_raises_not_found_with_the_servers_code_and_body(fake, client):
    fake.replies.append(Reply(404, body=NO_SUCH_KEY))
    with pytest.raises(S3NotFoundError) as caught:
        client.get_object(bucket="bkt", key="missing")
    error = caught.value
    assert (error.bucket, error.key, error.status, error.code) == (
        "bkt",
        "missing",
        404,
        "NoSuchKey",
    )
    assert "GetObject s3://bkt/missing failed: HTTP 404" in str(error)
    assert "The specified key does not exist." in str(error)
    assert "<Code>NoSuchKey</Code>" in str(error)


def test_other_failures_raise_s3_error_with_the_status_and_body(fake, client):
    body = b"<Error><Code>SignatureDoesNotMatch</Code><Message>bad</Message></Error>"
    fake.replies.append(Reply(403, body=body))
    with pytest.raises(S3Error) as caught:
        client.put_object(bucket="bkt", key="k", body=b"x")
    assert not isinstance(caught.value, S3NotFoundError)
    assert caught.value.status == 403
    assert "SignatureDoesNotMatch: bad" in str(caught.value)


def test_a_head_404_has_no_body_and_still_names_the_object(fake, client):
    fake.replies.append(Reply(404))
    with pytest.raises(
        S3NotFoundError, match=r"HeadObject s3://bkt/k failed: HTTP 404"
    ):
        client.head_object(bucket="bkt", key="k")


@pytest.mark.parametrize(
    ("replies", "created", "methods"),
    [
        pytest.param([Reply(200)], False, ["HEAD"], id="exists"),
        pytest.param([Reply(404), Reply(200)], True, ["HEAD", "PUT"], id="created"),
        pytest.param(
            [Reply(404), Reply(409, body=b"<Error><Code>BucketAlreadyOwnedByYou</Code></Error>")],
            False, ["HEAD", "PUT"], id="lost-the-race",
        ),
    ],
)  # fmt: skip
def test_ensure_bucket_creates_only_a_missing_bucket(
    fake, client, replies, created, methods
):
    fake.replies += replies
    assert client.ensure_bucket("bkt") is created
    assert [r.method for r in fake.requests] == methods
    assert {r.target for r in fake.requests} == {"/bkt"}


def test_no_server_raises_s3_error_without_a_status():
    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = S3Config(
        endpoint=f"127.0.0.1:{port}", access_key="a", secret_key="s", insecure=True
    )
    with pytest.raises(S3Error, match="no HTTP reply") as caught:
        S3Client(config, clock=lambda: NOW).get_object(bucket="bkt", key="k")
    assert caught.value.status is None


def test_config_repr_hides_the_secret_key():
    assert "sk-secret" not in repr(
        S3Config(endpoint="h", access_key="a", secret_key="sk-secret")
    )


def test_a_404_with_a_code_other_than_absent_is_not_taken_for_a_missing_object(
    fake, client
):
    body = b"<Error><Code>XAdminUserNotFound</Code><Message>no user</Message></Error>"
    fake.replies.append(Reply(404, body=body))
    with pytest.raises(S3Error) as caught:
        client.get_object(bucket="bkt", key="k")
    assert not isinstance(caught.value, S3NotFoundError)
    assert (caught.value.status, caught.value.code) == (404, "XAdminUserNotFound")
