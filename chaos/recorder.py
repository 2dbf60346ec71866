"""Record a namespace's history to a JSONL file while an experiment runs.

`HistoryRecorder` lists every source on `start()` (on the caller's thread, so
nothing created after `start()` returns is missed), writes the listed objects
as RELIST lines closed by a list-end BOOKMARK, then watches each source from
its listing's resourceVersion on a thread of its own. When a watch answers
410 Gone or its stream ends, the thread lists again: a fresh listing is the
only way to learn about deletions that happened while no watch was open.

`stop()` (or leaving the `with` block) interrupts the watches and joins the
threads; a thread that failed is reported then as a `RecorderError`, because
a history with a silent gap would make the invariants lie.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any
from typing import Protocol
from typing import TextIO

from chaos.errors import RecorderError
from chaos.errors import ResourceGone
from chaos.history import dump_line
from chaos.sources import WATCH_TIMEOUT_SECONDS
from chaos.sources import Source
from chaos.sources import namespace_sources

logger = logging.getLogger(__name__)

JOIN_SECONDS = 10.0
"""How long `stop()` waits for each thread after interrupting its watch. A
thread still blocked then (a watch that started just as stop was called) is
left behind as a daemon: it writes nothing more, the writer is closed."""


class Clock(Protocol):
    """The two clocks stamped on each line; tests pass a fake."""

    def time(self) -> float:
        """Wall-clock unix time."""

    def monotonic(self) -> float:
        """A clock that never goes back."""


class SystemClock:
    """The real clocks."""

    def time(self) -> float:
        """`time.time()`."""
        return time.time()

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()


class HistoryWriter:
    """Appends lines to the history file; thread-safe, one flush per batch."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = path.open("a", encoding="utf-8")

    def write(self, kind: str, events: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Write `(type, object)` events as contiguous lines, stamped now."""
        with self._lock:
            if self._file is None:
                return  # a straggler thread after stop(): drop, do not fail
            for type_, obj in events:
                meta = obj.get("metadata") or {}
                line = {
                    "kind": kind,
                    "type": type_,
                    "resourceVersion": str(meta.get("resourceVersion", "")),
                    "received": self._clock.time(),
                    "monotonic": self._clock.monotonic(),
                    "object": obj,
                }
                self._file.write(dump_line(line))
            self._file.flush()

    def close(self) -> None:
        """Close the file; later writes are dropped."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class HistoryRecorder:
    """Background list+watch of several sources into one JSONL history."""

    def __init__(
        self,
        path: Path | str,
        sources: Sequence[Source],
        *,
        clock: Clock | None = None,
        outage_seconds: float = 0.0,
        retry_seconds: float = 1.0,
    ) -> None:
        self.path = Path(path)
        self._outage = outage_seconds
        """How long the API server may be unreachable before recording fails.

        0 (the default): the first failure fails the recording. An experiment
        that takes the API server down on purpose allows its outage: the
        recorder lists again once it answers, which also reveals what was
        deleted meanwhile (the history has no silent hole, only a coarser
        view of the outage)."""
        self._retry = retry_seconds
        self._sources = list(sources)
        self._clock: Clock = clock or SystemClock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._failures: list[tuple[str, BaseException]] = []
        self.failed = threading.Event()
        """Set as soon as a recording thread fails: an experiment may stop
        early rather than run on with a history that has a hole."""
        self._writer: HistoryWriter | None = None

    @classmethod
    def for_namespace(
        cls,
        api_client: Any,
        namespace: str,
        path: Path | str,
        *,
        watch_timeout_seconds: int = WATCH_TIMEOUT_SECONDS,
        outage_seconds: float = 0.0,
    ) -> HistoryRecorder:
        """Record Workflows, Pods, WorkflowTaskResults and Events of a namespace.

        Give it an ApiClient of its own: `kubernetes.stream` swaps `call_api`
        on the client it execs with, which would hijack the watch threads.
        """
        sources = namespace_sources(
            api_client, namespace, watch_timeout_seconds=watch_timeout_seconds
        )
        return cls(path, sources, outage_seconds=outage_seconds)

    def _relist(self, writer: HistoryWriter, source: Source) -> str:
        listing = source.list()
        envelope: dict[str, Any] = {
            **source.list_kind,
            "metadata": {"resourceVersion": listing.resource_version},
        }
        events = [("RELIST", item) for item in listing.items]
        writer.write(source.kind, [*events, ("BOOKMARK", envelope)])
        return listing.resource_version

    def _relist_after_outage(
        self, writer: HistoryWriter, source: Source, cause: Exception
    ) -> str:
        """List again until the API answers, within the allowed outage."""
        deadline = self._clock.monotonic() + self._outage
        logger.warning("%s watch failed (%s); listing again.", source.kind, cause)
        while True:
            # Event.wait paces the retries and ends them at once on stop().
            if self._stop.wait(self._retry):
                raise cause
            try:
                return self._relist(writer, source)
            except Exception as exc:  # still down: retry or give up
                if self._clock.monotonic() >= deadline:
                    raise exc from cause

    def _run(self, writer: HistoryWriter, source: Source, version: str) -> None:
        try:
            while not self._stop.is_set():
                try:
                    for event in source.watch(version):
                        if self._stop.is_set():
                            return
                        writer.write(source.kind, [(event.type, event.object)])
                except ResourceGone as exc:
                    logger.info("%s: %s; listing again", source.kind, exc)
                except Exception as exc:
                    if self._outage <= 0 or self._stop.is_set():
                        raise
                    version = self._relist_after_outage(writer, source, exc)
                    continue
                if self._stop.is_set():
                    return
                version = self._relist(writer, source)
        except Exception as exc:
            # Broad on purpose: stop() reports it. After stop, an interrupted
            # socket raises whatever the HTTP library raises; that is the end.
            if not self._stop.is_set():
                logger.error("%s recording failed: %s", source.kind, exc)
                self._failures.append((source.kind, exc))
                self.failed.set()

    def start(self) -> None:
        """List every source now, then watch each on a background thread."""
        if self._writer is not None:
            raise RecorderError("the recorder was already started")
        self._writer = writer = HistoryWriter(self.path, self._clock)
        try:
            versions = [self._relist(writer, source) for source in self._sources]
        except Exception as exc:
            writer.close()
            raise RecorderError(f"the first listing failed: {exc}") from exc
        for source, version in zip(self._sources, versions, strict=True):
            thread = threading.Thread(
                target=self._run,
                args=(writer, source, version),
                name=f"wpc-history-{source.kind}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()

    def stop(self) -> None:
        """Interrupt the watches, join the threads, close the file."""
        self._stop.set()
        for source in self._sources:
            source.interrupt()
        for thread in self._threads:
            thread.join(timeout=JOIN_SECONDS)
            if thread.is_alive():
                logger.warning("%s did not stop within %s s", thread.name, JOIN_SECONDS)
        if self._writer is not None:
            self._writer.close()
        if self._failures:
            detail = "; ".join(
                f"{k}: {type(e).__name__}: {e}" for k, e in self._failures
            )
            raise RecorderError(f"recording {self.path} failed: {detail}")

    def __enter__(self) -> HistoryRecorder:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.stop()
            return
        try:
            self.stop()
        except RecorderError as failure:
            # The block's own exception matters more; keep ours in the log.
            logger.error("%s", failure)
