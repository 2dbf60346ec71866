"""Fixtures: the built S3 server, run on a free loopback port per test module."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference_impl.artifacts import building
from reference_impl.artifacts import names
from reference_impl.s3.client import S3Client
from reference_impl.s3.client import S3Config
from tests import loopback

ACCESS_KEY = "wpc-test-access"
SECRET_KEY = "wpc-test-secret"
READY_TIMEOUT = 20.0
"""Seconds for the server to accept connections (it needs well under one)."""


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


@pytest.fixture(scope="module")
def s3_server(
    s3_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    root = tmp_path_factory.mktemp("s3")
    # The same layout the manifest's init container makes: the bucket exists
    # at start as a directory, metadata lives in a sidecar directory.
    (root / "buckets" / names.BUCKET).mkdir(parents=True)
    (root / "meta").mkdir()
    port = loopback.free_port()
    log_path = root / "server.log"
    command = [
        str(s3_binary), "--port", f"127.0.0.1:{port}",
        "posix", "--sidecar", str(root / "meta"), str(root / "buckets"),
    ]  # fmt: skip
    env = {"ROOT_ACCESS_KEY_ID": ACCESS_KEY, "ROOT_SECRET_ACCESS_KEY": SECRET_KEY}
    with loopback.serving(
        command,
        port=port,
        log_path=log_path,
        env=env,
        describe="S3 server",
        ready_timeout=READY_TIMEOUT,
    ) as process:
        config = S3Config(
            endpoint=f"127.0.0.1:{port}",
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            insecure=True,
        )
        yield RunningServer(
            config=config, process=process, root=root, log_path=log_path
        )
