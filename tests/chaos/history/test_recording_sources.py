from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from typing import ClassVar

import pytest
from kubernetes.client.exceptions import ApiException

from chaos.history.recording import namespace_sources
from conformance.errors import ResourceGone
from conformance.harness.cluster.listwatch import KubeSource
from conformance.harness.cluster.listwatch import WatchEvent


class FakeApiClient:
    def sanitize_for_serialization(self, obj: Any) -> Any:
        return obj.as_json


class Model:
    def __init__(self, as_json: dict[str, Any]) -> None:
        self.as_json = as_json


class FakeWatch:
    instances: ClassVar[list[FakeWatch]] = []
    script: ClassVar[list[dict[str, Any] | Exception]] = []

    def __init__(self) -> None:
        self.kwargs: dict[str, Any] = {}
        self.stopped = False
        FakeWatch.instances.append(self)

    def stream(self, func: Any, *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        self.kwargs = kwargs
        for item in FakeWatch.script:
            if isinstance(item, Exception):
                raise item
            yield item

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def fake_watch(monkeypatch: pytest.MonkeyPatch) -> type[FakeWatch]:
    FakeWatch.instances = []
    FakeWatch.script = []
    monkeypatch.setattr("kubernetes.watch.Watch", FakeWatch)
    return FakeWatch


def _source(listing: Any = None) -> KubeSource:
    return KubeSource(
        kind="Pod",
        api_version="v1",
        api_client=FakeApiClient(),
        list_fn=lambda namespace: listing,
        args=("ns",),
        watch_timeout_seconds=7,
    )


def test_list_turns_models_and_dicts_into_api_json() -> None:
    pod = {"metadata": {"name": "a", "resourceVersion": "3"}}
    model = Model({"metadata": {"resourceVersion": "9"}, "items": [pod]})

    listing = _source(model).list()

    assert listing.items == [pod]
    assert listing.resource_version == "9"
    assert _source({"metadata": {}, "items": None}).list().items == []
    assert _source(model).list_kind == {"apiVersion": "v1", "kind": "PodList"}


def test_watch_yields_raw_objects_and_turns_410_into_gone(
    fake_watch: type[FakeWatch],
) -> None:
    raw = {"metadata": {"name": "a", "resourceVersion": "11"}}
    fake_watch.script = [
        {"type": "ADDED", "raw_object": raw, "object": Model(raw)},
        ApiException(status=410, reason="Expired"),
    ]
    events: list[WatchEvent] = []

    with pytest.raises(ResourceGone):
        events.extend(_source().watch("10"))

    assert [(e.type, e.object) for e in events] == [("ADDED", raw)]
    (used,) = fake_watch.instances
    assert used.kwargs == {
        "resource_version": "10",
        "timeout_seconds": 7,
        "allow_watch_bookmarks": True,
    }


def test_other_api_errors_propagate(fake_watch: type[FakeWatch]) -> None:
    fake_watch.script = [ApiException(status=403, reason="Forbidden")]

    with pytest.raises(ApiException):
        list(_source().watch("1"))


def test_interrupt_stops_the_running_watch_and_any_later_one(
    fake_watch: type[FakeWatch],
) -> None:
    source = _source()
    fake_watch.script = [{"type": "BOOKMARK", "raw_object": {"metadata": {}}}]
    stream = source.watch("1")
    next(stream)

    source.interrupt()

    assert fake_watch.instances[0].stopped
    assert list(source.watch("2")) == []


def test_namespace_sources_cover_the_four_kinds() -> None:
    sources = namespace_sources(FakeApiClient(), "ns")

    assert [s.kind for s in sources] == [
        "Workflow",
        "Pod",
        "WorkflowTaskResult",
        "Event",
    ]
    assert sources[0].list_kind == {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "WorkflowList",
    }
