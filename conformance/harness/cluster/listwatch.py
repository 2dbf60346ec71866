"""List, watch, list again: the one engine behind the suite's and chaos's recorders.

`ListWatch.start(sink)` lists every `Source` on the caller's thread (so nothing
created after `start()` returns is missed) and hands each listing to the sink,
then watches each source from its listing's resourceVersion on a thread of its
own and hands over every event. When a watch answers 410 Gone the thread lists
again. When the server ends a stream it either lists again
(`relist_at_stream_end`, chaos's history: a fresh listing is the only way to
learn about deletions that happened while no watch was open) or watches on from
the last version it saw (the suite's recorder, whose watches are short so that
its exit is quick, and whose record would otherwise fill up with listings).

The sink decides what is recorded and how (chaos writes JSONL lines, the suite
keeps events in memory); the engine only decides when to list and when to watch.
`stop()` interrupts the watches, joins the threads and returns what failed, and
each caller raises its own error for it: a record with a silent gap would make
the checks that read it lie.

`KubeSource` is the real `Source`, on the kubernetes client; tests replace it
with a scripted fake, so the re-list logic is tested without a cluster.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Protocol

from conformance.errors import ResourceGone

logger = logging.getLogger(__name__)

GONE = 410
"""The HTTP status of a watch from a compacted resourceVersion."""
JOIN_SECONDS = 10.0
"""How long `stop()` waits for each thread after interrupting its watch. A
thread still blocked then (a watch that started just as stop was called) is
left behind as a daemon; the sink drops what it hands over after stop."""


@dataclass(frozen=True)
class Listing:
    """The result of one list call: its items and the list's resourceVersion."""

    items: list[dict[str, Any]]
    resource_version: str


@dataclass(frozen=True)
class WatchEvent:
    """One watch event: ADDED, MODIFIED, DELETED or BOOKMARK, and its object."""

    type: str
    object: dict[str, Any]


class Source(Protocol):
    """One resource kind in one namespace, as the engine sees it."""

    @property
    def kind(self) -> str:
        """The kind the record names ("Pod", "Workflow", ...)."""

    @property
    def list_kind(self) -> dict[str, str]:
        """apiVersion and kind of the list envelope ("PodList", ...)."""

    def list(self) -> Listing:
        """List every object now."""

    def watch(self, resource_version: str) -> Iterator[WatchEvent]:
        """Events after `resource_version`; raises `ResourceGone` on 410."""

    def interrupt(self) -> None:
        """End a running `watch()` soon, and any later one; called from another thread."""


class Sink(Protocol):
    """What a recorder does with what the engine observes."""

    def listed(self, source: Source, listing: Listing) -> None:
        """A listing of `source`: on start, after 410 Gone, maybe at a stream end."""

    def watched(self, source: Source, event: WatchEvent) -> None:
        """One watch event of `source`."""


class KubeSource:
    """A namespaced list function of the kubernetes client, as a `Source`.

    Every object it hands over is API JSON (camelCase dicts), for core and
    custom resources alike.
    """

    def __init__(
        self,
        *,
        kind: str,
        api_version: str,
        api_client: Any,
        list_fn: Callable[..., Any],
        args: tuple[Any, ...],
        watch_timeout_seconds: int,
        bookmarks: bool = True,
    ) -> None:
        self._kind = kind
        self._api_version = api_version
        self._api_client = api_client
        self._list_fn = list_fn
        self._args = args
        self._timeout = watch_timeout_seconds
        self._bookmarks = bookmarks
        self._lock = threading.Lock()
        self._closed = False
        self._watch: Any = None

    @property
    def kind(self) -> str:
        """The kind the record names."""
        return self._kind

    @property
    def list_kind(self) -> dict[str, str]:
        """apiVersion and kind of the list envelope."""
        return {"apiVersion": self._api_version, "kind": self._kind + "List"}

    def _json(self, obj: Any) -> dict[str, Any]:
        if isinstance(obj, dict):
            return obj
        return dict(self._api_client.sanitize_for_serialization(obj))

    def list(self) -> Listing:
        """List every object now, as API JSON."""
        listing = self._json(self._list_fn(*self._args))
        version = str((listing.get("metadata") or {}).get("resourceVersion", ""))
        return Listing([dict(i) for i in listing.get("items") or []], version)

    def watch(self, resource_version: str) -> Iterator[WatchEvent]:
        """Watch from `resource_version` until the server ends the stream."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        stream_watch = watch.Watch()  # type: ignore[no-untyped-call]
        with self._lock:
            if self._closed:
                return
            self._watch = stream_watch
        # Bookmarks only where the sink records them (chaos's history).
        options = {"allow_watch_bookmarks": True} if self._bookmarks else {}
        try:
            # timeout_seconds also makes the client raise 410 instead of
            # silently retrying, which is what lets the engine list again.
            for event in stream_watch.stream(  # type: ignore[no-untyped-call]
                self._list_fn,
                *self._args,
                resource_version=resource_version,
                timeout_seconds=self._timeout,
                **options,
            ):
                raw = event.get("raw_object") or event["object"]
                yield WatchEvent(str(event["type"]), self._json(raw))
        except ApiException as exc:
            if exc.status == GONE:
                raise ResourceGone(
                    f"{self._kind} watch from {resource_version}"
                ) from exc
            raise
        finally:
            with self._lock:
                self._watch = None

    def interrupt(self) -> None:
        """Stop the running watch (shuts its socket) and any later one."""
        with self._lock:
            self._closed = True
            running = self._watch
        if running is not None:
            running.stop()


class ListWatch:
    """Background list+watch of several sources, one thread each, into one sink."""

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        name: str,
        relist_at_stream_end: bool,
        outage_seconds: float = 0.0,
        retry_seconds: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sources = list(sources)
        self._name = name
        self._relist_at_end = relist_at_stream_end
        self._outage = outage_seconds
        """How long the API server may be unreachable before recording fails.

        0 (the default): the first failure fails the recording. An experiment
        that takes the API server down on purpose allows its outage: the
        engine lists again once it answers, which also reveals what was
        deleted meanwhile (the record has no silent hole, only a coarser view
        of the outage)."""
        self._retry = retry_seconds
        self._monotonic = monotonic
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._failures: list[tuple[str, BaseException]] = []
        self.failed = threading.Event()
        """Set as soon as a thread fails: a caller may stop early rather than
        run on with a record that has a hole."""

    def start(self, sink: Sink) -> None:
        """List every source now (a failure is raised here), then watch each."""
        versions = [self._list(sink, source) for source in self._sources]
        for source, version in zip(self._sources, versions, strict=True):
            thread = threading.Thread(
                target=self._run,
                args=(sink, source, version),
                name=f"{self._name}-{source.kind}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()

    def stop(self) -> list[tuple[str, BaseException]]:
        """Interrupt the watches, join the threads; (kind, error) of each failed one."""
        self._stop.set()
        for source in self._sources:
            source.interrupt()
        for thread in self._threads:
            thread.join(timeout=JOIN_SECONDS)
            if thread.is_alive():
                logger.warning("%s did not stop within %s s", thread.name, JOIN_SECONDS)
        return list(self._failures)

    def _list(self, sink: Sink, source: Source) -> str:
        listing = source.list()
        sink.listed(source, listing)
        return listing.resource_version

    def _list_after_outage(self, sink: Sink, source: Source, cause: Exception) -> str:
        """List again until the API answers, within the allowed outage."""
        deadline = self._monotonic() + self._outage
        logger.warning("%s watch failed (%s); listing again.", source.kind, cause)
        while True:
            # Event.wait paces the retries and ends them at once on stop().
            if self._stop.wait(self._retry):
                raise cause
            try:
                return self._list(sink, source)
            except Exception as exc:  # still down: retry or give up
                if self._monotonic() >= deadline:
                    raise exc from cause

    def _watch(self, sink: Sink, source: Source, version: str) -> str:
        """Hand over events until the stream ends; the last version seen."""
        for event in source.watch(version):
            if self._stop.is_set():
                break
            sink.watched(source, event)
            meta = event.object.get("metadata") or {}
            version = str(meta.get("resourceVersion", version))
        return version

    def _run(self, sink: Sink, source: Source, version: str) -> None:
        try:
            while not self._stop.is_set():
                try:
                    version = self._watch(sink, source, version)
                    if not self._relist_at_end:
                        continue
                except ResourceGone as exc:
                    logger.info("%s: %s; listing again", source.kind, exc)
                except Exception as exc:
                    if self._outage <= 0 or self._stop.is_set():
                        raise
                    version = self._list_after_outage(sink, source, exc)
                    continue
                if self._stop.is_set():
                    return
                version = self._list(sink, source)
        except BaseException as exc:
            # Broad on purpose: stop() reports it. After stop, an interrupted
            # socket raises whatever the HTTP library raises; that is the end.
            if not self._stop.is_set():
                logger.error("%s recording failed: %s", source.kind, exc)
                self._failures.append((source.kind, exc))
                self.failed.set()
