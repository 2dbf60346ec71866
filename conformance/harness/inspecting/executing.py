"""Run a command in a running container, as `kubectl exec` does.

`run()` returns the command's exit code and its output (stdout then stderr);
`Shell` runs commands in one test's namespace; its `wait_for_file()` and `touch()`
are the handshake scenarios use with their user commands ("I have started",
"go on").
It uses an ApiClient of its own and closes the websocket it opens:
`kubernetes.stream` swaps `call_api` on the client it is given while it runs
(unsafe with a Recorder thread on a shared client), and an unclosed socket is a
ResourceWarning, which the suite treats as an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.watching import until
from plumbing.waiting import NotYet

ERROR_CHANNEL = 3
"""The websocket channel carrying the exec's final status."""


@dataclass(frozen=True)
class Result:
    """What an exec returned."""

    returncode: int | None
    """The command's exit code; None when the runtime reported none."""
    output: str


def run(
    clients: kube.Clients,
    *,
    namespace: str,
    pod: str,
    container: str,
    command: list[str],
    timeout: float,
) -> Result:
    """Execute `command` in `pod`/`container` and wait for it (ApiException if refused)."""
    from kubernetes import client
    from kubernetes.stream import stream

    api = client.ApiClient(clients.api.configuration)
    try:
        ws: Any = stream(
            client.CoreV1Api(api).connect_get_namespaced_pod_exec,
            pod,
            namespace,
            container=container,
            command=command,
            stderr=True,
            stdin=False,
            stdout=True,
            tty=False,
            _preload_content=False,
        )
        try:
            ws.run_forever(timeout=timeout)
            output = ws.read_stdout() + ws.read_stderr()
            returncode, error = _status(ws.read_channel(ERROR_CHANNEL))
            return Result(returncode=returncode, output=output + error)
        finally:
            ws.close()
            if ws.sock is not None:
                # websocket-client's close() skips the socket once the server
                # closed the stream; shutdown() always releases it.
                ws.sock.shutdown()
    finally:
        api.close()  # type: ignore[no-untyped-call]


def _status(text: str) -> tuple[int | None, str]:
    """The exit code from the exec's status channel, and any error it reports."""
    status = yaml.safe_load(text) if text else None
    if not isinstance(status, dict):
        return None, ""
    if status.get("status") == "Success":
        return 0, ""
    causes = (status.get("details") or {}).get("causes") or []
    for cause in causes:
        if cause.get("reason") == "ExitCode":
            return int(cause["message"]), ""
    return None, str(status.get("message", text))


STARTED = "/tmp/started"
"""Where the scenarios' held user commands say "I have started"."""
GO = "/tmp/go"
"""What a held user command waits for before it goes on."""


@dataclass(frozen=True)
class Shell:
    """Commands in the containers of one test's namespace (the `shell` fixture)."""

    clients: kube.Clients
    namespace: str
    timeouts: Timeouts

    def run(self, pod: str, command: list[str], *, container: str = "main") -> Result:
        """Execute `command` in the container and return what it did."""
        return run(
            self.clients,
            namespace=self.namespace,
            pod=pod,
            container=container,
            command=command,
            timeout=self.timeouts.api_call,
        )

    def sh(
        self, pod: str, script: str, *, container: str = "main", check: bool = True
    ) -> str:
        """Run `sh -c script`; its output (AssertionError if it fails and `check`)."""
        result = self.run(pod, ["sh", "-c", script], container=container)
        assert result.returncode == 0 or not check, (
            f"exec {script!r} in {pod}/{container}: {result}"
        )
        return result.output

    def wait_for_file(self, pod: str, path: str, *, container: str = "main") -> None:
        """Wait until `path` exists in the container (a user command's "I started")."""
        from kubernetes.client.exceptions import ApiException

        def exists() -> bool | NotYet:
            try:
                result = self.run(pod, ["test", "-e", path], container=container)
            except ApiException as exc:
                return NotYet(f"exec refused: HTTP {exc.status} {exc.reason}")
            return result.returncode == 0 or NotYet(f"{path} not there: {result}")

        until(
            exists,
            timeout=self.timeouts.user_command_started,
            interval=self.timeouts.poll_interval,
            describe=f"{path} to exist in {self.namespace}/{pod}/{container}",
        )

    def touch(self, pod: str, path: str, *, container: str = "main") -> None:
        """Create `path` in the container (releases a command waiting for it)."""
        result = self.run(pod, ["touch", path], container=container)
        if result.returncode != 0:
            raise HarnessError(
                f"touch {path} in {self.namespace}/{pod}/{container}: {result}"
            )

    def wait_started(self, pod: str, *, path: str = STARTED) -> None:
        """Wait until a held user command in `main` has started (`path` exists)."""
        self.wait_for_file(pod, path)

    def release(self, pod: str, *, path: str = GO) -> None:
        """Let a held user command in `main` go on (create `path`)."""
        self.touch(pod, path)
