"""We test the `follow-main-by-exec` fault without a cluster:

- the follower opens one session per running main (none for a pod whose main does
  not run or that is being deleted, one however often the pod is seen);
- a session that broke without an exit status marks the pod lost and queues its
  workflow; one that ended with a status, or could not open, changes nothing;
- an exec session's end is read as such: a status on the error channel is an end,
  a closed socket or an exception without one is a break (`held_to_its_status`),
  and the session asks for the v4 protocol only (`hold_exec`);
- in the controller: a lost pod is dropped from the workflow's view, so its node
  errors as `pod deleted`; without the fault no follower exists and no session opens.
"""

from __future__ import annotations

import datetime
from typing import Any
from typing import cast

import pytest
from kubernetes import client
from kubernetes.stream import ws_client

from reference_impl.controller import errors
from reference_impl.controller import faults
from reference_impl.controller.config import configuration
from reference_impl.controller.machinery import kube
from reference_impl.controller.runtime import following
from reference_impl.controller.runtime.controlling import WorkflowController
from tests.reference_impl.controller.conftest import NOW
from tests.reference_impl.controller.conftest import Harness
from tests.reference_impl.controller.conftest import pod_status
from tests.reference_impl.controller.conftest import running
from tests.reference_impl.controller.conftest import settings
from tests.reference_impl.controller.conftest import workflow
from tests.reference_impl.controller.runtime.test_controlling import FakeApi
from tests.reference_impl.controller.runtime.test_controlling import Monotonic
from tests.reference_impl.controller.runtime.test_controlling import cluster_of
from tests.reference_impl.controller.runtime.test_controlling import drain
from tests.reference_impl.controller.runtime.test_controlling import latest

Json = dict[str, Any]
STEP = """
metadata: {name: wf, namespace: ns, uid: wf-uid}
spec:
  entrypoint: main
  templates:
  - name: main
    steps:
    - - {name: work, template: held}
  - name: held
    container: {image: busybox, command: [sleep, "60"]}
"""


def a_pod(*, main_runs: bool = True, deleting: bool = False) -> Json:
    state = {"running": {"startedAt": "2026-01-02T03:04:00Z"}} if main_runs else {}
    meta: Json = {"name": "p", "namespace": "ns"}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-02T03:04:05Z"
    return {
        "metadata": meta,
        "status": {"containerStatuses": [{"name": "main", "state": state}]},
    }


class Sessions:
    """A fake `hold_exec` that ends each session as told (True: with a status)."""

    def __init__(self, ends: bool | Exception) -> None:
        self.ends = ends
        self.opened: list[tuple[str, str, str, list[str]]] = []

    def __call__(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> bool:
        self.opened.append((namespace, pod, container, command))
        if isinstance(self.ends, Exception):
            raise self.ends
        return self.ends


def follower(sessions: Sessions, lost: list[Json]) -> following.MainFollower:
    return following.MainFollower(
        hold=sessions, on_lost=lost.append, spawn=lambda _name, run: run()
    )


@pytest.mark.parametrize(
    "pod",
    [a_pod(main_runs=False), a_pod(deleting=True)],
    ids=["main-not-running", "pod-deleting"],
)
def test_no_session_unless_main_runs(pod):
    sessions = Sessions(ends=True)
    follower(sessions, []).follow(pod)
    assert sessions.opened == []


def test_one_session_per_running_main_however_often_it_is_seen():
    sessions = Sessions(ends=True)
    f = follower(sessions, [])
    f.follow(a_pod())
    f.follow(a_pod())
    assert sessions.opened == [("ns", "p", "main", following.COMMAND)]


def test_a_broken_session_marks_the_pod_lost():
    lost: list[Json] = []
    f = follower(Sessions(ends=False), lost)
    f.follow(a_pod())
    assert f.lost(a_pod())
    assert [p["metadata"]["name"] for p in lost] == ["p"]


@pytest.mark.parametrize(
    "ends",
    [True, errors.ApiError(verb="EXEC", target="ns/p/main", status=500, reason="x")],
    ids=["ended-with-a-status", "could-not-open"],
)
def test_a_session_that_ended_or_never_opened_changes_nothing(ends):
    lost: list[Json] = []
    f = follower(Sessions(ends=ends), lost)
    f.follow(a_pod())
    assert not f.lost(a_pod())
    assert lost == []


class WsSession:
    """A fake `WSClient`: frames per update, then closed or an exception."""

    def __init__(self, frames: list[dict[int, str]], end: Exception | None) -> None:
        self.frames, self.end = frames, end
        self.channels: dict[int, str] = {}
        self.open = True

    def is_open(self) -> bool:
        return self.open

    def update(self, timeout: float = 0) -> None:
        if not self.open:
            return
        if self.frames:
            for channel, data in self.frames.pop(0).items():
                self.channels[channel] = self.channels.get(channel, "") + data
        elif self.end is not None:
            raise self.end
        else:
            self.open = False

    def read_channel(self, channel: int, timeout: float = 0) -> str:
        return self.channels.pop(channel, "")

    def close(self) -> None:
        self.open = False


@pytest.mark.parametrize(
    ("frames", "end", "ended"),
    [
        ([{1: "out"}, {3: '{"status":"Success"}'}], None, True),
        ([{3: '{"status":"Failure","message":"exit code 137"}'}], None, True),
        ([{1: "out"}], None, False),
        ([{1: "out"}], ConnectionResetError("reset by peer"), False),
    ],
    ids=["success", "killed-with-its-container", "closed-without-status", "cut"],
)
def test_an_exec_session_ends_with_a_status_or_breaks(frames, end, ended):
    assert kube.held_to_its_status(WsSession(frames, end)) is ended


class ExecApi(FakeApi):
    def __init__(self, sessions: Sessions) -> None:
        super().__init__()
        self.hold_exec = sessions


def test_hold_exec_asks_for_v4_and_reads_the_session_to_its_end(monkeypatch):
    opened: list[Json] = []

    def session(configuration, url, headers, capture_all, binary=False):
        opened.append(headers)
        return WsSession([{1: "out"}], ConnectionResetError("reset by peer"))

    monkeypatch.setattr(ws_client, "WSClient", session)
    configuration = client.Configuration()
    configuration.host = "https://127.0.0.1:1"
    ended = kube.KubeApi(configuration).hold_exec("ns", "p", "main", ["sleep", "1"])
    assert ended is False
    assert [h["sec-websocket-protocol"] for h in opened] == ["v4.channel.k8s.io"]


def test_a_lost_main_errors_its_node_as_pod_deleted():
    h = Harness(workflow(STEP))
    h.reconcile()
    h.set_pod("wf[0].work", pod_status("Running", main=running(), wait=running()))
    h.reconcile()
    long_ago = (NOW - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    h.node("wf[0].work")["startedAt"] = long_ago
    wf, pods, results = cluster_of(h, created=long_ago)
    sessions = Sessions(ends=False)
    api = ExecApi(sessions)
    wfc = WorkflowController(
        api=cast(Any, api),
        settings=settings(fault=faults.Fault.FOLLOW_MAIN_BY_EXEC),
        startup_config=configuration.ControllerConfig(),
        clock=lambda: NOW,
        monotonic=Monotonic(),
    )
    assert wfc.follower is not None
    wfc.follower = following.MainFollower(  # the same, with sessions in this thread
        hold=sessions, on_lost=wfc._enqueue_owner, spawn=lambda _name, run: run()
    )
    wfc.workflows.apply("ADDED", wf)
    for result in results:
        wfc.task_results.apply("ADDED", result)
    for pod in pods:
        wfc.pods.apply("ADDED", pod)
    assert len(sessions.opened) == 1
    assert drain(wfc.queue) == ["ns/wf"]
    drain(wfc.cleaner.queue)
    wfc.process_workflow("ns/wf")
    work = next(
        n
        for n in latest(api, wf)["status"]["nodes"].values()
        if n["name"] == "wf[0].work"
    )
    assert (work["phase"], work["message"]) == ("Error", "pod deleted")


def test_a_correct_controller_follows_nothing():
    wfc = WorkflowController(
        api=cast(Any, FakeApi()),  # no hold_exec: a session would fail the test
        settings=settings(),
        startup_config=configuration.ControllerConfig(),
        clock=lambda: NOW,
        monotonic=Monotonic(),
    )
    assert wfc.follower is None
    wfc.pods.apply("ADDED", a_pod())
