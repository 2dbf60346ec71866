"""Record a namespace's history to a JSONL file while an experiment runs.

`HistoryRecorder` lists every source on `start()` (on the caller's thread, so
nothing created after `start()` returns is missed), writes the listed objects
as RELIST lines closed by a list-end BOOKMARK, then watches each source from
its listing's resourceVersion on a thread of its own. When a watch answers
410 Gone or its stream ends, the thread lists again: a fresh listing is the
only way to learn about deletions that happened while no watch was open.

`stop()` (or leaving the `with` block) interrupts the watches and joins the
threads; a thread that failed is reported then as a `RecorderError`, because
a history with a silent gap would make the invariants lie. The listing and
watching is `conformance.harness.cluster.listwatch`, the engine the suite's recorder
shares; this module decides what a history line is and which kinds it records.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any
from typing import Protocol
from typing import TextIO

from chaos.errors import RecorderError
from chaos.history.records import dump_line
from conformance import contract
from conformance.harness.cluster.listwatch import KubeSource
from conformance.harness.cluster.listwatch import Listing
from conformance.harness.cluster.listwatch import ListWatch
from conformance.harness.cluster.listwatch import Source
from conformance.harness.cluster.listwatch import WatchEvent

logger = logging.getLogger(__name__)

WATCH_TIMEOUT_SECONDS = 300
"""Server-side length of one watch. The recorder lists again at every stream
end, so this bounds how stale a missed deletion can get without making the
history a string of relists; `stop()` interrupts a running watch anyway."""


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

    def listed(self, source: Source, listing: Listing) -> None:
        """The engine's sink: the listed objects as RELIST lines, then the list-end BOOKMARK."""
        envelope: dict[str, Any] = {
            **source.list_kind,
            "metadata": {"resourceVersion": listing.resource_version},
        }
        events = [("RELIST", item) for item in listing.items]
        self.write(source.kind, [*events, ("BOOKMARK", envelope)])

    def watched(self, source: Source, event: WatchEvent) -> None:
        """The engine's sink: one watch event as one line."""
        self.write(source.kind, [(event.type, event.object)])

    def close(self) -> None:
        """Close the file; later writes are dropped."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class HistoryRecorder:
    """Background list+watch of several sources into one JSONL history.

    A `listwatch.ListWatch` that lists again at every stream end, writing
    through a `HistoryWriter`.
    """

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
        self._clock: Clock = clock or SystemClock()
        self._engine = ListWatch(
            sources,
            name="wpc-history",
            relist_at_stream_end=True,
            outage_seconds=outage_seconds,
            retry_seconds=retry_seconds,
            monotonic=self._clock.monotonic,
        )
        self.failed = self._engine.failed
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

    def start(self) -> None:
        """List every source now, then watch each on a background thread."""
        if self._writer is not None:
            raise RecorderError("the recorder was already started")
        self._writer = writer = HistoryWriter(self.path, self._clock)
        try:
            self._engine.start(writer)
        except Exception as exc:
            writer.close()
            raise RecorderError(f"the first listing failed: {exc}") from exc

    def stop(self) -> None:
        """Interrupt the watches, join the threads, close the file."""
        failures = self._engine.stop()
        if self._writer is not None:
            self._writer.close()
        if failures:
            detail = "; ".join(f"{k}: {type(e).__name__}: {e}" for k, e in failures)
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


def namespace_sources(
    api_client: Any,
    namespace: str,
    *,
    watch_timeout_seconds: int = WATCH_TIMEOUT_SECONDS,
) -> list[KubeSource]:
    """Workflows, Pods, WorkflowTaskResults and Events of one namespace."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client).list_namespaced_custom_object
    argo = f"{contract.WORKFLOW_GROUP}/{contract.WORKFLOW_VERSION}"
    plural = (contract.WORKFLOW_GROUP, contract.WORKFLOW_VERSION, namespace)
    kinds: list[tuple[str, str, Callable[..., Any], tuple[Any, ...]]] = [
        ("Workflow", argo, custom, (*plural, contract.WORKFLOWS)),
        ("Pod", "v1", core.list_namespaced_pod, (namespace,)),
        ("WorkflowTaskResult", argo, custom, (*plural, contract.TASK_RESULTS)),
        ("Event", "v1", core.list_namespaced_event, (namespace,)),
    ]
    return [
        KubeSource(
            kind=kind,
            api_version=api_version,
            list_fn=list_fn,
            args=args,
            api_client=api_client,
            watch_timeout_seconds=watch_timeout_seconds,
        )
        for kind, api_version, list_fn, args in kinds
    ]
