"""We test the controller's `/healthz` endpoint, the reference's readiness probe.

It answers 200 `ok` on `/healthz` and 404 elsewhere, stops answering when
closed, and a port already taken is a start-up error naming the port (the
controller then exits 2, as for any start-up error), not a silent controller
that never becomes Ready.
"""

from __future__ import annotations

import socket
import threading
import urllib.error
import urllib.request

import pytest

from reference_impl.controller import errors
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.runtime import health
from reference_impl.controller.runtime import running

HTTP_TIMEOUT = 5.0
"""Seconds for one GET to the local endpoint (it answers at once)."""


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}{path}", timeout=HTTP_TIMEOUT
        ) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_healthz_answers_ok_and_other_paths_not_found():
    server = health.HealthServer(0)
    try:
        assert _get(server.port, "/healthz") == (200, "ok")
        assert _get(server.port, "/metrics")[0] == 404
    finally:
        server.close()
    with pytest.raises(urllib.error.URLError, match="refused"):
        _get(server.port, "/healthz")  # no longer served


def test_a_taken_port_is_a_start_up_error_naming_it():
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(errors.SettingsError, match=f"port {port}"):
            health.HealthServer(port)


class _Api:
    def __init__(self, *args: object) -> None:
        pass

    def get_configmap(self, namespace: str, name: str) -> dict[str, object]:
        return {"data": {}}


def test_run_exits_2_when_it_cannot_serve_healthz(monkeypatch):
    monkeypatch.setattr(running.kube, "KubeApi", _Api)
    monkeypatch.setattr(running.kube, "load_configuration", lambda *a: None)
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        settings = ControllerSettings.from_env(
            {"LEADER_ELECTION_DISABLE": "true"}, health_port=taken.getsockname()[1]
        )
        assert (
            running.run(settings, stop=threading.Event()) == running.EXIT_CANNOT_START
        )
