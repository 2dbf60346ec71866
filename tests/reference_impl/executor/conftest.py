"""Fixtures for the executor's unit tests: a fake clock and a fake pod filesystem."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any
from typing import BinaryIO

import pytest

from reference_impl.executor.api import taskresults
from reference_impl.executor.errors import ApiError
from reference_impl.executor.protocol import Paths

START = 1_800_000_000.0


class FakeClock:
    """Time that only moves when the code under test sleeps or waits."""

    def __init__(self, start: float = START) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        time.sleep(0)  # noqa: sleep-ok - yields the GIL to other threads; no waiting

    def wait(self, event: threading.Event, timeout: float) -> bool:
        if event.is_set():
            return True
        self.now += timeout
        time.sleep(0)  # noqa: sleep-ok - as above
        return event.is_set()


class FakeApi:
    """A WorkflowTaskResult API in memory, with scripted failures."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.failures: list[ApiError] = []

    def _maybe_fail(self, method: str) -> None:
        if self.failures:
            raise self.failures.pop(0)

    def create(self, *, namespace: str, body: dict[str, Any]) -> None:
        self.calls.append(("create", namespace, body))
        self._maybe_fail("POST")
        name = body["metadata"]["name"]
        if name in self.objects:
            raise api_error(409, "AlreadyExists")
        self.objects[name] = body

    def merge_patch(self, *, namespace: str, name: str, patch: dict[str, Any]) -> None:
        self.calls.append(("patch", namespace, patch))
        self._maybe_fail("PATCH")
        if name not in self.objects:
            raise api_error(404, "NotFound")
        _merge(self.objects[name], patch)

    def get(self, *, namespace: str, name: str) -> dict[str, Any]:
        """Forbidden, as under the executor's Role (create and patch only)."""
        self.calls.append(("get", namespace, {}))
        raise api_error(403, "Forbidden")


def _merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def api_error(status: int, reason: str) -> ApiError:
    return ApiError(method="X", path="/p", status=status, reason=reason, message=reason)


class FakeStore:
    """An ObjectStore in memory."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], bytes] = {}
        self.locations: list[dict[str, Any]] = []

    def factory(self, location: dict[str, Any]) -> FakeStore:
        self.locations.append(location)
        return self

    def download(self, *, bucket: str, key: str, out: BinaryIO) -> None:
        from reference_impl.executor.storage.stores import ArtifactNotFound

        if (bucket, key) not in self.objects:
            raise ArtifactNotFound(f"s3://{bucket}/{key}")
        out.write(self.objects[(bucket, key)])

    def upload(self, *, bucket: str, key: str, src: Path) -> None:
        self.objects[(bucket, key)] = src.read_bytes()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    """A pod filesystem: /var/run/argo and /dev exist, as they do in a pod."""
    root = tmp_path / "root"
    (root / "var/run/argo").mkdir(parents=True)
    (root / "dev").mkdir()
    (root / "dev/termination-log").touch()
    return Paths(root=root)


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def reporter(api: FakeApi, clock: FakeClock) -> taskresults.Reporter:
    identity = taskresults.Identity(
        namespace="ns", node_id="wf-123", workflow_name="wf", workflow_uid="uid-1"
    )
    return taskresults.Reporter(api=api, identity=identity, clock=clock)
