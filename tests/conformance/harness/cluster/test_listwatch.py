"""We test the recorders' shared list+watch engine (no cluster):

- after 410 Gone it lists once again and watches on from the new listing's
  version, in both modes (listing again at a stream end, or watching on);
- watching on from the last version seen at a stream end lists nothing;
- the suite's `Recorder`, on the kubernetes client's watch, records LISTED
  events, the watched ones, and the listing again after a 410.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import ClassVar

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.errors import HarnessError
from conformance.errors import ResourceGone
from conformance.harness.cluster.listwatch import Listing
from conformance.harness.cluster.listwatch import ListWatch
from conformance.harness.cluster.listwatch import Source
from conformance.harness.cluster.listwatch import WatchEvent
from conformance.harness.inspecting.recording import Recorder

WAIT = 10.0  # a bound for Event.wait, never reached when the code works


def obj(name: str, version: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": version}}


@dataclass
class FakeSource:
    """Scripted listings and watches (each ends in "gone" or a stream end)."""

    listings: list[Listing]
    watches: list[tuple[list[WatchEvent], str]]
    kind: str = "Pod"
    watched_from: list[str] = field(default_factory=list)
    idle: threading.Event = field(default_factory=threading.Event)
    interrupted: threading.Event = field(default_factory=threading.Event)

    @property
    def list_kind(self) -> dict[str, str]:
        return {"apiVersion": "v1", "kind": "PodList"}

    def list(self) -> Listing:
        return self.listings.pop(0)

    def watch(self, resource_version: str) -> Iterator[WatchEvent]:
        self.watched_from.append(resource_version)
        if not self.watches:
            self.idle.set()
            self.interrupted.wait(WAIT)
            return
        events, end = self.watches.pop(0)
        yield from events
        if end == "gone":
            raise ResourceGone("compacted")

    def interrupt(self) -> None:
        self.interrupted.set()


@dataclass
class Calls:
    """A sink that keeps what it was handed, as (call, name or version) pairs."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    def listed(self, source: Source, listing: Listing) -> None:
        self.seen.append(("listed", listing.resource_version))

    def watched(self, source: Source, event: WatchEvent) -> None:
        self.seen.append((event.type, event.object["metadata"]["name"]))


@pytest.mark.parametrize("relist_at_stream_end", [True, False])
def test_gone_lists_once_again_and_watches_on_from_the_new_listing(
    relist_at_stream_end: bool,
) -> None:
    source = FakeSource(
        listings=[Listing([obj("a", "10")], "10"), Listing([obj("b", "11")], "20")],
        watches=[([WatchEvent("ADDED", obj("b", "11"))], "gone")],
    )
    sink = Calls()
    engine = ListWatch([source], name="test", relist_at_stream_end=relist_at_stream_end)

    engine.start(sink)
    assert source.idle.wait(WAIT)
    assert engine.stop() == []

    assert sink.seen == [("listed", "10"), ("ADDED", "b"), ("listed", "20")]
    assert source.watched_from == ["10", "20"]
    assert not source.listings  # both listings used, no third one


def test_watching_on_at_a_stream_end_lists_nothing() -> None:
    source = FakeSource(
        listings=[Listing([], "10")],
        watches=[([WatchEvent("ADDED", obj("a", "12"))], "end"), ([], "end")],
    )
    sink = Calls()
    engine = ListWatch([source], name="test", relist_at_stream_end=False)

    engine.start(sink)
    assert source.idle.wait(WAIT)
    engine.stop()

    assert sink.seen == [("listed", "10"), ("ADDED", "a")]
    assert source.watched_from == ["10", "12", "12"]


class FakeApi:
    """The recorder's private ApiClient: list results are dicts already."""

    closed = False

    def close(self) -> None:
        self.closed = True


class FakeWatch:
    """`kubernetes.watch.Watch`: the first stream answers 410, the next blocks."""

    streams: ClassVar[list[str]] = []
    blocked = threading.Event()
    stopped = threading.Event()

    def stream(self, func: Any, *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        FakeWatch.streams.append(kwargs["resource_version"])
        if len(FakeWatch.streams) == 1:
            yield {"type": "ADDED", "raw_object": obj("b", "11")}
            raise ApiException(status=410, reason="Expired")
        FakeWatch.blocked.set()
        FakeWatch.stopped.wait(WAIT)

    def stop(self) -> None:
        FakeWatch.stopped.set()


def test_the_suite_recorder_lists_again_after_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    FakeWatch.streams = []
    FakeWatch.blocked = threading.Event()
    FakeWatch.stopped = threading.Event()
    monkeypatch.setattr("kubernetes.watch.Watch", FakeWatch)
    listings = [
        {"metadata": {"resourceVersion": "10"}, "items": [obj("a", "10")]},
        {"metadata": {"resourceVersion": "20"}, "items": [obj("b", "11")]},
    ]
    api = FakeApi()
    recorder = Recorder(api, lambda namespace: listings.pop(0), "ns", kind="Pod")

    with recorder:
        assert FakeWatch.blocked.wait(WAIT)  # the second stream, until exit

    assert [(e.kind, e.obj["metadata"]["name"]) for e in recorder.events()] == [
        ("LISTED", "a"),
        ("ADDED", "b"),
        ("LISTED", "b"),
    ]
    assert FakeWatch.streams == ["10", "20"]
    assert api.closed


def test_a_failed_watch_of_the_suite_recorder_is_raised_on_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Forbidden(FakeWatch):
        def stream(
            self, func: Any, *args: Any, **kwargs: Any
        ) -> Iterator[dict[str, Any]]:
            raise ApiException(status=403, reason="Forbidden")

    monkeypatch.setattr("kubernetes.watch.Watch", Forbidden)
    listing = {"metadata": {"resourceVersion": "1"}, "items": []}
    recorder = Recorder(FakeApi(), lambda namespace: listing, "ns", kind="Pod")

    with (
        pytest.raises(HarnessError, match=r"recording \('ns',\) failed: ApiException"),
        recorder,
    ):
        assert recorder._engine.failed.wait(WAIT)
