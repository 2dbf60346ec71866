"""A small, typed S3 client for the reference executor: stdlib only.

The executor is packaged as a static PyInstaller binary, so this client uses
nothing beyond `http.client`, `hashlib`/`hmac` (through `signing`) and
`xml.etree` for error bodies. It speaks path-style S3 (`/<bucket>/<key>`),
signs every request with SigV4 (an `Authorization` header, the payload hash in
`x-amz-content-sha256`) and never retries: retry policy belongs to the caller.

`S3Config` mirrors Argo's `s3` artifact repository fields: `endpoint` is
`host[:port]` without a scheme and `insecure=True` means plain HTTP.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import http.client
import logging
import xml.etree.ElementTree as ET
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import BinaryIO

from reference_impl.s3 import signing
from reference_impl.s3.errors import S3Error
from reference_impl.s3.errors import S3NotFoundError

logger = logging.getLogger(__name__)

_BLOCK = 64 * 1024
_NOT_FOUND_CODES = frozenset({"", "NoSuchKey", "NoSuchBucket", "NotFound"})
"""404 codes that mean "absent". A HEAD 404 has no body (code ""); versitygw
also answers an unknown access key with 404 XAdminUserNotFound, which must not
pass for a missing (perhaps optional) artifact."""
_Body = bytes | BinaryIO | None


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True)
class S3Config:
    """Where the S3 server is and how to sign for it."""

    endpoint: str
    """`host[:port]`, as in Argo's `s3.endpoint` (no scheme)."""
    access_key: str
    secret_key: str = field(repr=False)
    region: str = "us-east-1"
    """The SigV4 scope region; servers outside AWS default to us-east-1."""
    insecure: bool = False
    """Plain HTTP when true, HTTPS otherwise (Argo's `s3.insecure`)."""
    timeout: float = 30.0
    """Seconds for connecting and for each socket read or write."""


@dataclass(frozen=True)
class ObjectInfo:
    """What HEAD tells about an object."""

    size: int
    etag: str
    content_type: str
    last_modified: str


def _error_fields(body: str) -> tuple[str, str]:
    """Return (Code, Message) of an S3 XML error body, or empty strings."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return "", ""
    return root.findtext("Code") or "", root.findtext("Message") or ""


class S3Client:
    """Signed path-style requests against one S3 endpoint."""

    def __init__(
        self,
        config: S3Config,
        *,
        clock: Callable[[], datetime.datetime] = _utcnow,  # a seam for tests
    ) -> None:
        self._config = config
        self._clock = clock

    def _connection(self) -> http.client.HTTPConnection:
        cfg = self._config
        if cfg.insecure:
            return http.client.HTTPConnection(
                cfg.endpoint, timeout=cfg.timeout, blocksize=_BLOCK
            )
        return http.client.HTTPSConnection(
            cfg.endpoint, timeout=cfg.timeout, blocksize=_BLOCK
        )

    @contextlib.contextmanager
    def _request(
        self,
        *,
        operation: str,
        method: str,
        bucket: str,
        key: str = "",
        query: Sequence[tuple[str, str]] = (),
        body: _Body = None,
        payload_hash: str = signing.EMPTY_SHA256,
        headers: dict[str, str] | None = None,
    ) -> Iterator[http.client.HTTPResponse]:
        """Send one signed request; yield a 2xx response, raise S3Error otherwise."""
        cfg = self._config
        path = f"/{bucket}/{key}" if key else f"/{bucket}"
        amz_date = self._clock().strftime("%Y%m%dT%H%M%SZ")
        signed = {
            "host": cfg.endpoint,
            "x-amz-date": amz_date,
            "x-amz-content-sha256": payload_hash,
        }
        signed["authorization"] = signing.authorization(
            signing.Request(method, path, query, signed, payload_hash),
            access_key=cfg.access_key,
            secret_key=cfg.secret_key,
            region=cfg.region,
            amz_date=amz_date,
        )
        url = signing.uri_encode(path, keep_slash=True)
        if query:
            url += "?" + signing.canonical_query(query)
        conn = self._connection()
        try:
            try:
                conn.request(
                    method, url, body=body, headers={**(headers or {}), **signed}
                )
                response = conn.getresponse()
            except OSError as exc:  # refused, reset, timed out, DNS
                raise S3Error(
                    operation=operation,
                    bucket=bucket,
                    key=key,
                    status=None,
                    server_message=f"{type(exc).__name__}: {exc}",
                ) from exc
            if not 200 <= response.status < 300:
                text = response.read().decode("utf-8", "replace")
                code, message = _error_fields(text)
                missing = response.status == 404 and code in _NOT_FOUND_CODES
                error = S3NotFoundError if missing else S3Error
                raise error(
                    operation=operation,
                    bucket=bucket,
                    key=key,
                    status=response.status,
                    code=code or response.reason,
                    server_message=message,
                    body=text,
                )
            yield response
        finally:
            conn.close()

    def put_object(
        self,
        *,
        bucket: str,
        key: str,
        body: bytes | Path,
        content_type: str = "application/octet-stream",
    ) -> str:
        """Upload `body` (bytes, or a file streamed from disk); return the ETag."""
        if isinstance(body, bytes):
            return self._put(
                bucket=bucket,
                key=key,
                body=body,
                payload_hash=hashlib.sha256(body).hexdigest(),
                headers={"content-type": content_type},
            )
        hasher = hashlib.sha256()
        with body.open("rb") as stream:
            for block in iter(lambda: stream.read(_BLOCK), b""):
                hasher.update(block)
            size = stream.tell()
            stream.seek(0)
            return self._put(
                bucket=bucket,
                key=key,
                body=stream,
                payload_hash=hasher.hexdigest(),
                headers={"content-type": content_type, "content-length": str(size)},
            )

    def _put(
        self,
        *,
        bucket: str,
        key: str,
        body: bytes | BinaryIO,
        payload_hash: str,
        headers: dict[str, str],
    ) -> str:
        with self._request(
            operation="PutObject",
            method="PUT",
            bucket=bucket,
            key=key,
            body=body,
            payload_hash=payload_hash,
            headers=headers,
        ) as response:
            response.read()
            return (response.getheader("ETag") or "").strip('"')

    def get_object(self, *, bucket: str, key: str) -> bytes:
        """Return an object's content (for small objects; see `download_object`)."""
        with self._request(
            operation="GetObject", method="GET", bucket=bucket, key=key
        ) as response:
            return response.read()

    def download_object(self, *, bucket: str, key: str, out: BinaryIO) -> int:
        """Stream an object into the open file `out`; return the number of bytes written.

        A file, not a path: the executor creates its download without following
        links, so nothing here may open a path again.
        """
        written = 0
        with self._request(
            operation="GetObject", method="GET", bucket=bucket, key=key
        ) as response:
            while block := response.read(_BLOCK):
                out.write(block)
                written += len(block)
        return written

    def head_object(self, *, bucket: str, key: str) -> ObjectInfo:
        """Return an object's size, ETag and type; S3NotFoundError if absent."""
        with self._request(
            operation="HeadObject", method="HEAD", bucket=bucket, key=key
        ) as response:
            response.read()
            return ObjectInfo(
                size=int(response.getheader("Content-Length") or 0),
                etag=(response.getheader("ETag") or "").strip('"'),
                content_type=response.getheader("Content-Type") or "",
                last_modified=response.getheader("Last-Modified") or "",
            )

    def bucket_exists(self, bucket: str) -> bool:
        """True if HEAD on the bucket succeeds, False on 404."""
        try:
            with self._request(
                operation="HeadBucket", method="HEAD", bucket=bucket
            ) as response:
                response.read()
        except S3NotFoundError:
            return False
        return True

    def ensure_bucket(self, bucket: str) -> bool:
        """Create `bucket` unless it exists; return True if this call created it."""
        if self.bucket_exists(bucket):
            return False
        body = b""
        if self._config.region != "us-east-1":
            # Outside us-east-1, S3 wants the region named in the body.
            body = (
                "<CreateBucketConfiguration><LocationConstraint>"
                f"{self._config.region}"
                "</LocationConstraint></CreateBucketConfiguration>"
            ).encode()
        try:
            with self._request(
                operation="CreateBucket",
                method="PUT",
                bucket=bucket,
                body=body,
                payload_hash=hashlib.sha256(body).hexdigest(),
            ) as response:
                response.read()
        except S3Error as exc:
            # Another writer created it between our HEAD and PUT.
            if exc.code == "BucketAlreadyOwnedByYou":
                return False
            raise
        logger.info("[s3://%s] Created the bucket.", bucket)
        return True
