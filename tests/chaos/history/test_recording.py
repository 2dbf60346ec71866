from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from chaos.errors import RecorderError
from chaos.history.recording import HistoryRecorder
from chaos.history.records import load_history
from conformance.errors import ResourceGone
from conformance.harness.cluster.listwatch import Listing
from conformance.harness.cluster.listwatch import WatchEvent

WAIT = 10.0  # a bound for Event.wait, never reached when the code works


def obj(name: str, version: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": version}
    }


@dataclass
class Script:
    events: list[WatchEvent]
    end: str | Exception = "end"  # "end" (stream end), "gone" or an exception


@dataclass
class FakeSource:
    """Scripted listings and watches; blocks when out of script until interrupted."""

    kind: str
    listings: list[Listing | Exception]
    watches: list[Script]
    watched_from: list[str] = field(default_factory=list)
    idle: threading.Event = field(default_factory=threading.Event)
    interrupted: threading.Event = field(default_factory=threading.Event)

    @property
    def list_kind(self) -> dict[str, str]:
        return {"apiVersion": "v1", "kind": f"{self.kind}List"}

    def list(self) -> Listing:
        listing = self.listings.pop(0)
        if isinstance(listing, Exception):
            raise listing
        return listing

    def watch(self, resource_version: str) -> Iterator[WatchEvent]:
        self.watched_from.append(resource_version)
        if not self.watches:
            self.idle.set()
            self.interrupted.wait(WAIT)
            return
        script = self.watches.pop(0)
        yield from script.events
        if script.end == "gone":
            raise ResourceGone("compacted")
        if isinstance(script.end, Exception):
            raise script.end

    def interrupt(self) -> None:
        self.interrupted.set()


class FakeClock:
    def __init__(self) -> None:
        self.ticks = 0
        self._lock = threading.Lock()

    def time(self) -> float:
        with self._lock:
            self.ticks += 1
            return 1_700_000_000.0 + self.ticks

    def monotonic(self) -> float:
        return float(self.ticks)


def test_lists_then_watches_and_relists_on_gone_and_stream_end(tmp_path: Path) -> None:
    source = FakeSource(
        "Pod",
        listings=[
            Listing([obj("a", "10")], "10"),
            Listing([obj("a", "12"), obj("b", "11")], "20"),
            Listing([], "30"),
        ],
        watches=[
            Script([WatchEvent("ADDED", obj("b", "11"))], end="gone"),
            Script([WatchEvent("MODIFIED", obj("a", "21"))], end="end"),
        ],
    )
    path = tmp_path / "h.jsonl"

    with HistoryRecorder(path, [source], clock=FakeClock()):
        assert source.idle.wait(WAIT)

    records = load_history(path).records
    assert [(r.type, r.name or r.object["kind"]) for r in records] == [
        ("RELIST", "a"),
        ("BOOKMARK", "PodList"),
        ("ADDED", "b"),
        ("RELIST", "a"),
        ("RELIST", "b"),
        ("BOOKMARK", "PodList"),
        ("MODIFIED", "a"),
        ("BOOKMARK", "PodList"),
    ]
    assert [r.resource_version for r in records] == [
        "10", "10", "11", "12", "11", "20", "21", "30"
    ]  # fmt: skip
    assert all(r.kind == "Pod" for r in records)
    assert records[1].is_list_end
    assert source.watched_from == ["10", "20", "30"]
    assert [r.received for r in records] == sorted(r.received for r in records)
    assert records[0].to_json()["received"] == 1_700_000_001.0


def test_each_source_gets_a_thread_and_listings_stay_contiguous(tmp_path: Path) -> None:
    pods = FakeSource("Pod", [Listing([obj("p1", "1"), obj("p2", "2")], "5")], [])
    workflows = FakeSource("Workflow", [Listing([obj("w", "3")], "6")], [])
    path = tmp_path / "h.jsonl"

    with HistoryRecorder(path, [workflows, pods], clock=FakeClock()) as recorder:
        assert pods.idle.wait(WAIT)
        assert workflows.idle.wait(WAIT)
        assert not recorder.failed.is_set()

    kinds = [(r.kind, r.type) for r in load_history(path).records]
    assert kinds == [
        ("Workflow", "RELIST"),
        ("Workflow", "BOOKMARK"),
        ("Pod", "RELIST"),
        ("Pod", "RELIST"),
        ("Pod", "BOOKMARK"),
    ]


def test_a_failed_watch_is_raised_on_stop(tmp_path: Path) -> None:
    source = FakeSource(
        "Pod",
        [Listing([], "1")],
        [
            Script(
                [WatchEvent("ADDED", obj("a", "2"))], end=RuntimeError("403 forbidden")
            )
        ],
    )
    recorder = HistoryRecorder(tmp_path / "h.jsonl", [source], clock=FakeClock())
    recorder.start()

    assert recorder.failed.wait(WAIT)
    with pytest.raises(RecorderError, match=r"Pod: RuntimeError: 403 forbidden"):
        recorder.stop()
    assert [r.type for r in load_history(tmp_path / "h.jsonl").records] == [
        "BOOKMARK",
        "ADDED",
    ]


def test_a_failed_first_listing_fails_start(tmp_path: Path) -> None:
    source = FakeSource("Pod", [RuntimeError("connection refused")], [])
    recorder = HistoryRecorder(tmp_path / "h.jsonl", [source], clock=FakeClock())

    with pytest.raises(RecorderError, match="first listing failed: connection refused"):
        recorder.start()


def test_an_error_inside_the_block_wins_over_a_recording_failure(
    tmp_path: Path,
) -> None:
    source = FakeSource("Pod", [Listing([], "1")], [Script([], end=RuntimeError("x"))])

    recorder = HistoryRecorder(tmp_path / "h.jsonl", [source], clock=FakeClock())

    def experiment() -> None:
        with recorder:
            assert recorder.failed.wait(WAIT)
            raise KeyError("the experiment's own error")

    with pytest.raises(KeyError, match="own error"):
        experiment()


def test_an_allowed_api_outage_is_bridged_by_listing_again(tmp_path: Path) -> None:
    down = ConnectionRefusedError("connection refused")
    source = FakeSource(
        "Pod",
        listings=[
            Listing([obj("a", "1")], "1"),
            down,
            Listing([obj("a", "5")], "5"),
        ],
        watches=[Script([], end=down)],
    )
    clock = FakeClock()
    recorder = HistoryRecorder(
        tmp_path / "h.jsonl",
        [source],
        clock=clock,
        outage_seconds=WAIT,
        retry_seconds=0.0,
    )
    recorder.start()
    assert source.idle.wait(WAIT)
    recorder.stop()
    history = load_history(tmp_path / "h.jsonl")
    assert [(r.type, r.resource_version) for r in history.records] == [
        ("RELIST", "1"),
        ("BOOKMARK", "1"),
        ("RELIST", "5"),
        ("BOOKMARK", "5"),
    ]
    assert source.watched_from == ["1", "5"]


def test_without_an_allowed_outage_a_failed_watch_fails_the_recording(
    tmp_path: Path,
) -> None:
    source = FakeSource(
        "Pod",
        listings=[Listing([], "1")],
        watches=[Script([], end=ConnectionRefusedError("refused"))],
    )
    recorder = HistoryRecorder(tmp_path / "h.jsonl", [source], clock=FakeClock())
    recorder.start()
    assert recorder.failed.wait(WAIT)
    with pytest.raises(RecorderError, match="refused"):
        recorder.stop()
