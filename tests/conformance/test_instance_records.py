"""We test the record's calls through the real Kubernetes client, against a stub server.

What the fake of test_instance_lock.py assumes of the client, checked on the
wire: the API server's time is the Date of its reply; a 409 on create reads
as "someone else created it"; a replace carries the resourceVersion that was
read and a delete carries it as a precondition. And the lease keeper renews
in its thread and notices when another run took its record.
"""

from __future__ import annotations

import datetime
import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any
from typing import ClassVar

import pytest

from conformance.harness.cluster import kube
from conformance.implementations import leases
from conformance.implementations import records
from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.conformance import fakerecords
from tests.loopback import free_port

WAIT = 10.0
"""The keeper's thread renews (every 0.01 s here) or notices a takeover."""
OWNER = records.Owner(
    implementation="reference",
    profile="/p/reference.yaml",
    namespace="wpc-legacy",
    layout="legacy",
    ref="0.1.0",
    build="controller=c:1",
)


class Stub(http.server.BaseHTTPRequestHandler):
    """Answers as an API server would, and keeps what it was sent."""

    seen: ClassVar[list[tuple[str, str, Any]]] = []
    created = False

    def _answer(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)  # adds a Date header, as Go's net/http does
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length)) if length else None

    def do_GET(self) -> None:
        self.seen.append(("GET", self.path, None))
        self._answer(200, {"kind": "Namespace", "metadata": {"name": "kube-system"}})

    def do_POST(self) -> None:
        self.seen.append(("POST", self.path, self._body()))
        if Stub.created:
            self._answer(409, {"kind": "Status", "reason": "AlreadyExists"})
            return
        Stub.created = True
        self._answer(201, {"kind": "ConfigMap", "metadata": {"name": "x"}})

    def do_PUT(self) -> None:
        self.seen.append(("PUT", self.path, self._body()))
        self._answer(409, {"kind": "Status", "reason": "Conflict"})

    def do_DELETE(self) -> None:
        self.seen.append(("DELETE", self.path, self._body()))
        self._answer(409, {"kind": "Status", "reason": "Conflict"})

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def stub_clients() -> Iterator[kube.Clients]:
    from kubernetes import client

    Stub.seen = []
    Stub.created = False
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{server.server_address[1]}"
    api = client.ApiClient(configuration)
    try:
        yield kube.Clients(
            api=api,
            core=client.CoreV1Api(api),
            rbac=client.RbacAuthorizationV1Api(api),
            custom=client.CustomObjectsApi(api),
        )
    finally:
        server.shutdown()
        server.server_close()


def test_the_real_client_reads_the_servers_time_and_answers_conflicts_as_lost(
    stub_clients,
):
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    now = records.server_now(stub_clients)
    assert before <= now <= datetime.datetime.now(datetime.UTC)
    holder = leases.holder("s", now)
    assert records.create(stub_clients, "wpc-legacy", owner=OWNER, holder=holder)
    assert not records.create(stub_clients, "wpc-legacy", owner=OWNER, holder=holder)
    assert not records.replace(
        stub_clients, "wpc-legacy", version="7", owner=OWNER, holder=None
    )
    assert not records.delete(stub_clients, "wpc-legacy", version="7")
    (_, path, created), _again, (_, _, replaced), (_, _, deleted) = Stub.seen[1:]
    assert path == "/api/v1/namespaces/kube-system/configmaps"
    assert created["metadata"]["name"] == "wpc-instance-wpc-legacy"
    assert created["data"]["session"] == "s"
    assert "resourceVersion" not in created["metadata"]
    assert replaced["metadata"]["resourceVersion"] == "7"
    assert "session" not in replaced["data"]
    assert deleted["preconditions"] == {"resourceVersion": "7"}


def test_the_keeper_renews_in_its_thread_and_notices_a_takeover(caplog):
    clients = fakerecords.clients()
    core: fakerecords.FakeCore = clients.core
    assert records.create(
        clients, "wpc-legacy", owner=OWNER, holder=leases.holder("s", core.now)
    )
    held = leases.Held("wpc-legacy", "s", created=True)
    keeper = leases.Keeper(clients, [held], every=0.01).start()
    try:
        core.advance(60)

        def renewed() -> bool | NotYet:
            found = records.read(clients, "wpc-legacy")
            return found.holder.renewed == core.now or NotYet(str(found.holder))

        until(renewed, timeout=WAIT, interval=0.01, describe="a renewal")
        found = records.read(clients, "wpc-legacy")
        assert records.replace(
            clients,
            "wpc-legacy",
            version=found.version,
            owner=OWNER,
            holder=leases.holder("other", core.now),
        )
        until(
            lambda: keeper.holds() == [] or NotYet(str(keeper.holds())),
            timeout=WAIT,
            interval=0.01,
            describe="the keeper to notice",
        )
    finally:
        keeper.release()
    assert "This run no longer holds instance ID wpc-legacy: session other" in (
        caplog.text
    )
    assert records.read(clients, "wpc-legacy").holder.session == "other"
