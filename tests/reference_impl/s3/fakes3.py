"""A scripted HTTP server on 127.0.0.1 that records what an S3 client sends.

Each request pops the next scripted reply (status, headers, body); the request
line, headers and body are recorded so a test can check what went over the
wire, including that the signature covers exactly the headers sent.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer


@dataclass
class Recorded:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass
class FakeS3:
    endpoint: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)


def _handler(fake: FakeS3) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            fake.requests.append(
                Recorded(
                    method=self.command,
                    target=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
            )
            reply = (
                fake.replies.pop(0) if fake.replies else Reply(500, body=b"unscripted")
            )
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if self.command != "HEAD" or "Content-Length" not in reply.headers:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)

        do_GET = do_PUT = do_HEAD = _serve

        def log_message(self, format: str, *args: object) -> None:
            """Keep the test output quiet."""

    return Handler


def serve() -> Iterator[FakeS3]:
    """Run a FakeS3 on a free loopback port for the duration of a fixture."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    fake = FakeS3(endpoint=f"127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(fake)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
