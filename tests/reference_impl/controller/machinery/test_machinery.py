"""We test these aspects of the controller's machinery without a cluster: the work queue
(de-duplication, one worker per key, delays on an injected clock, back-off), leader
election against a fake Lease API on an injected clock, and the informer's cache."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.machinery import leading
from reference_impl.controller.machinery import watching
from reference_impl.controller.machinery.queueing import WorkQueue

Json = dict[str, Any]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_queue_deduplicates_and_never_hands_a_key_to_two_workers() -> None:
    queue = WorkQueue(clock=FakeClock())
    queue.add("a")
    queue.add("a")
    assert len(queue) == 1
    assert queue.get(timeout=0) == "a"
    queue.add("a")
    assert queue.get(timeout=0) is None
    queue.done("a")
    assert queue.get(timeout=0) == "a"


def test_delayed_keys_become_due_on_the_injected_clock() -> None:
    clock = FakeClock()
    queue = WorkQueue(clock=clock)
    queue.add_after("a", 10)
    assert queue.get(timeout=0) is None
    clock.now += 10
    assert queue.get(timeout=0) == "a"


def test_rate_limited_adds_back_off_until_forgotten() -> None:
    clock = FakeClock()
    queue = WorkQueue(clock=clock)
    for _ in range(3):
        queue.add_rate_limited("a")
    clock.now += 0.005
    assert queue.get(timeout=0) == "a"
    queue.done("a")
    queue.forget("a")
    queue.add_rate_limited("a")
    clock.now += 0.005
    assert queue.get(timeout=0) == "a"


def test_shutdown_releases_workers() -> None:
    queue = WorkQueue(clock=FakeClock())
    queue.shutdown()
    assert queue.get() is None


class FakeLeases:
    def __init__(self) -> None:
        self.lease: Json | None = None
        self.version = 0

    def get_lease(self, namespace: str, name: str) -> Json | None:
        return (
            None
            if self.lease is None
            else {**self.lease, "spec": dict(self.lease["spec"])}
        )

    def create_lease(self, lease: Json) -> Json:
        if self.lease is not None:
            raise errors.AlreadyExists(
                verb="POST", target="lease", status=409, reason="exists"
            )
        self.lease = lease
        return lease

    def replace_lease(self, lease: Json) -> Json:
        self.lease = lease
        return lease


def elector(api: FakeLeases, identity: str, clock: Any) -> leading.LeaderElector:
    return leading.LeaderElector(
        api=api,
        namespace="argo",
        name="workflow-controller",
        identity=identity,
        clock=clock,
    )


def test_one_replica_leads_and_the_other_takes_over_after_expiry() -> None:
    api = FakeLeases()
    now = [datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)]
    a, b = elector(api, "a", lambda: now[0]), elector(api, "b", lambda: now[0])
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    now[0] += datetime.timedelta(seconds=10)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    now[0] += datetime.timedelta(seconds=16)
    assert b.try_acquire_or_renew()
    assert api.lease is not None
    assert api.lease["spec"]["holderIdentity"] == "b"
    assert api.lease["spec"]["leaseTransitions"] == 1
    assert not a.try_acquire_or_renew()


class ListSource:
    def __init__(self, items: list[Json]) -> None:
        self.items = items

    def list_items(self) -> tuple[list[Json], str]:
        return self.items, "1"

    def watch(self, resource_version: str) -> Iterator[tuple[str, Json]]:
        return iter(())


def obj(name: str, version: str, workflow: str = "wf") -> Json:
    return {
        "metadata": {
            "name": name,
            "namespace": "ns",
            "resourceVersion": version,
            "labels": {"workflows.argoproj.io/workflow": workflow},
        }
    }


def test_informer_caches_indexes_and_reports_changes() -> None:
    seen = []
    informer = watching.Informer(
        name="pods",
        source=ListSource([obj("a", "1")]),
        handlers=watching.Handlers(
            on_add=lambda o: seen.append(("add", o["metadata"]["name"])),
            on_update=lambda old, new: seen.append(("update", new["metadata"]["name"])),
            on_delete=lambda o: seen.append(("delete", o["metadata"]["name"])),
        ),
        indexes={
            "workflow": lambda o: [
                o["metadata"]["labels"]["workflows.argoproj.io/workflow"]
            ]
        },
    )
    informer.relist()
    informer.apply("MODIFIED", obj("a", "2"))
    informer.apply("ADDED", obj("b", "3", workflow="other"))
    informer.apply("DELETED", obj("a", "4"))
    assert seen == [("add", "a"), ("update", "a"), ("add", "b"), ("delete", "a")]
    assert [o["metadata"]["name"] for o in informer.by_index("workflow", "other")] == [
        "b"
    ]
    assert informer.get("ns/a") is None
