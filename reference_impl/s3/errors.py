"""Errors of the S3 client; each names the request and carries the server's reply.

S3Error                       root: an S3 request failed (bucket, key, status, body)
└── S3NotFoundError           the bucket or the key does not exist (404)
"""

from __future__ import annotations


class S3Error(Exception):
    """An S3 request failed: names the operation, bucket, key and the reply.

    `status` is None when no HTTP reply arrived (connection refused, timeout);
    `code` and `server_message` come from the server's XML error body.
    """

    def __init__(
        self,
        *,
        operation: str,
        bucket: str,
        key: str = "",
        status: int | None,
        code: str = "",
        server_message: str = "",
        body: str = "",
    ) -> None:
        self.operation = operation
        self.bucket = bucket
        self.key = key
        self.status = status
        self.code = code
        self.server_message = server_message
        self.body = body
        target = f"s3://{bucket}/{key}" if key else f"s3://{bucket}"
        reply = f"HTTP {status}" if status is not None else "no HTTP reply"
        detail = ": ".join(p for p in (code, server_message) if p)
        text = f"{operation} {target} failed: {reply}"
        if detail:
            text += f" ({detail})"
        if body:
            text += f"; body: {body[:2000]}"
        super().__init__(text)


class S3NotFoundError(S3Error):
    """The bucket or the object does not exist (HTTP 404 NoSuchKey/NoSuchBucket).

    Kept apart so a caller can treat an absent optional artifact as absent;
    any other 404 (for example a server's unknown-user code) stays an S3Error.
    """
