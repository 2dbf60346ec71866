"""The controller's health endpoint: `GET /healthz` on port 6060, as upstream serves it.

Upstream's workflow-controller serves `/healthz` on `:6060` (its Deployment uses it
as a liveness probe). The reference serves it too and its Deployment uses it as a
readiness probe: the endpoint starts only once the stop signals are handled and the
configuration is read, so a Ready controller pod is one that already reacts to
SIGTERM as it will for the rest of its life. Without it the pod is Ready when its
container starts, seconds before the frozen program has unpacked and installed its
signal handlers, and a suite that stops a "ready" controller then is judging the
default disposition of SIGTERM, not the controller (WPC-RECOVERY-011).

The reference answers 200 whenever it runs. Upstream's extra check, that no
workflow older than `HEALTHZ_AGE` went unreconciled without progress between two
probes, is a liveness heuristic the reference does not have.
"""

from __future__ import annotations

import http.server
import logging
import threading

from reference_impl.controller import errors

logger = logging.getLogger(__name__)

PATH = "/healthz"
DEFAULT_PORT = 6060
"""Upstream's fixed port (cmd/workflow-controller/main.go, `:6060`)."""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        code, body = (200, b"ok") if self.path == PATH else (404, b"not found")
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the kubelet probes every second."""


class HealthServer:
    """`/healthz` served from a daemon thread until `close`."""

    def __init__(self, port: int) -> None:
        try:
            self._server = http.server.ThreadingHTTPServer(("", port), _Handler)
        except OSError as exc:
            raise errors.SettingsError(
                f"cannot serve {PATH} on port {port}: {exc}"
            ) from exc
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="healthz", daemon=True
        )
        self._thread.start()
        logger.info("Serving %s on port %d.", PATH, self.port)

    @property
    def port(self) -> int:
        """The bound port (the one asked for, or the kernel's pick for 0)."""
        return int(self._server.server_address[1])

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
