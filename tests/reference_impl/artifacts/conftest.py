"""Fixtures: the built S3 server, run on a free loopback port per test module."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from plumbing import waiting
from reference_impl.artifacts import building
from reference_impl.artifacts import names
from reference_impl.s3.client import S3Client
from reference_impl.s3.client import S3Config

ACCESS_KEY = "wpc-test-access"
SECRET_KEY = "wpc-test-secret"
READY_TIMEOUT = 20.0
"""Seconds for the server to accept connections (it needs well under one)."""
STOP_TIMEOUT = 10.0
POLL_INTERVAL = 0.05


@dataclass(frozen=True)
class RunningServer:
    config: S3Config
    process: subprocess.Popen[bytes]
    root: Path
    log_path: Path

    def client(
        self, *, access_key: str = ACCESS_KEY, secret_key: str = SECRET_KEY
    ) -> S3Client:
        config = S3Config(
            endpoint=self.config.endpoint,
            access_key=access_key,
            secret_key=secret_key,
            insecure=True,
        )
        return S3Client(config)


@pytest.fixture(scope="session")
def s3_binary() -> Path:
    settings = building.BuildSettings.from_env()
    if not building.is_built(settings):
        pytest.skip(
            f"S3 server not built at {settings.binary}; "
            "run `python -m reference_impl.artifacts build` (make test does)"
        )
    return settings.binary


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _log_tail(path: Path) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-30:])


@pytest.fixture(scope="module")
def s3_server(
    s3_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    root = tmp_path_factory.mktemp("s3")
    # The same layout the manifest's init container makes: the bucket exists
    # at start as a directory, metadata lives in a sidecar directory.
    (root / "buckets" / names.BUCKET).mkdir(parents=True)
    (root / "meta").mkdir()
    port = _free_port()
    log_path = root / "server.log"
    command = [
        str(s3_binary), "--port", f"127.0.0.1:{port}",
        "posix", "--sidecar", str(root / "meta"), str(root / "buckets"),
    ]  # fmt: skip
    env = {"ROOT_ACCESS_KEY_ID": ACCESS_KEY, "ROOT_SECRET_ACCESS_KEY": SECRET_KEY}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env
        )
    try:

        def accepting() -> bool | waiting.NotYet:
            if process.poll() is not None:
                pytest.fail(
                    f"S3 server exited with {process.returncode} before it was ready: "
                    f"{' '.join(command)}\nlog {log_path}:\n{_log_tail(log_path)}"
                )
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            except OSError as exc:
                return waiting.NotYet(f"{exc!r}; log tail:\n{_log_tail(log_path)}")
            return True

        waiting.until(
            accepting,
            timeout=READY_TIMEOUT,
            interval=POLL_INTERVAL,
            describe=f"S3 server on 127.0.0.1:{port}",
        )
        config = S3Config(
            endpoint=f"127.0.0.1:{port}",
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            insecure=True,
        )
        yield RunningServer(
            config=config, process=process, root=root, log_path=log_path
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)
