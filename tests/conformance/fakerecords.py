"""A fake of the core API calls the instance records make, conditional like the real one.

Like the API server: create of an existing name is 409 AlreadyExists (never a
replace); replace and delete carrying a resourceVersion (a delete in its
preconditions) are 409 Conflict when the object changed since, 404 NotFound
when it is gone; every write gives a new resourceVersion; the server's clock
(`now`, which a test moves) is the Date of `read_namespace_with_http_info`.
Calls are atomic under one lock, so threads race as on a real server.
`after_read` holds a reader back once it has seen what it read, to line up a race.
"""

from __future__ import annotations

import copy
import datetime
import email.utils
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from kubernetes.client.exceptions import ApiException

START = datetime.datetime(2026, 11, 28, 3, 0, tzinfo=datetime.UTC)


def _error(status: int, reason: str) -> ApiException:
    return ApiException(status=status, reason=reason)


def _precondition(body: Any) -> str:
    """The resourceVersion a delete's options carry ('' for none)."""
    if body is None:
        return ""
    preconditions = getattr(body, "preconditions", None)
    return str(getattr(preconditions, "resource_version", "") or "")


class FakeCore:
    """ConfigMaps of one API server, and its clock."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[str, Any]] = {}
        self.now = START
        self.after_read: Callable[[str], None] = lambda name: None
        self._version = 0
        self._lock = threading.Lock()

    def advance(self, seconds: float) -> None:
        """Move the server's clock on."""
        self.now += datetime.timedelta(seconds=seconds)

    def _next_version(self) -> str:
        self._version += 1
        return str(self._version)

    def read_namespace_with_http_info(
        self, name: str
    ) -> tuple[Any, int, dict[str, str]]:
        return (
            SimpleNamespace(metadata=SimpleNamespace(name=name)),
            200,
            {"Date": email.utils.format_datetime(self.now, usegmt=True)},
        )

    def read_namespaced_config_map(self, name: str, namespace: str) -> Any:
        with self._lock:
            stored = copy.deepcopy(self.maps.get(name))
        self.after_read(name)
        if stored is None:
            raise _error(404, "NotFound")
        return SimpleNamespace(
            data=stored["data"],
            metadata=SimpleNamespace(
                name=name, resource_version=stored["metadata"]["resourceVersion"]
            ),
        )

    def create_namespaced_config_map(self, namespace: str, body: dict[str, Any]) -> Any:
        name = body["metadata"]["name"]
        with self._lock:
            if name in self.maps:
                raise _error(409, "AlreadyExists")
            stored = copy.deepcopy(body)
            stored["metadata"]["resourceVersion"] = self._next_version()
            self.maps[name] = stored

    def replace_namespaced_config_map(
        self, name: str, namespace: str, body: dict[str, Any]
    ) -> Any:
        with self._lock:
            if name not in self.maps:
                raise _error(404, "NotFound")
            wanted = body["metadata"].get("resourceVersion", "")
            if wanted and wanted != self.maps[name]["metadata"]["resourceVersion"]:
                raise _error(409, "Conflict")
            stored = copy.deepcopy(body)
            stored["metadata"]["resourceVersion"] = self._next_version()
            self.maps[name] = stored

    def delete_namespaced_config_map(
        self, name: str, namespace: str, body: Any = None
    ) -> Any:
        with self._lock:
            if name not in self.maps:
                raise _error(404, "NotFound")
            wanted = _precondition(body)
            if wanted and wanted != self.maps[name]["metadata"]["resourceVersion"]:
                raise _error(409, "Conflict")
            del self.maps[name]

    def data(self, name: str) -> dict[str, str]:
        """The stored data of ConfigMap `name` (KeyError if there is none)."""
        with self._lock:
            return dict(self.maps[name]["data"])


def clients() -> SimpleNamespace:
    """Fake `kube.Clients` with a FakeCore and an API server URL."""
    return SimpleNamespace(
        core=FakeCore(),
        api=SimpleNamespace(
            configuration=SimpleNamespace(host="https://192.0.2.2:6443")
        ),
    )
