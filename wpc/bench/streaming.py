"""Event streams that stamp every event with this host's clocks the moment it arrives.

The harness's `watch_until` waits for one state; the benchmark instead needs
*every* event of many pods and workflows at once, each with its arrival time,
while it keeps submitting. A `Pump` lists, then watches, one kind of object in
the bench namespace on a thread of its own and puts each event on a queue as
an `Event`, stamped with the boot clock and the wall clock on arrival; the
main loop never polls. The objects stay plain JSON (`deserialize=False`), so
arrival is not delayed by model building. A watch request ends after
`BenchSettings.watch_window` and is re-opened from the last resourceVersion
(re-listed after a 410 Gone); a failure is put on the queue as a `WatchFailed`
for the main loop to raise.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubernetes import watch
from kubernetes.client.exceptions import ApiException

from wpc.bench import moments

Json = dict[str, Any]
logger = logging.getLogger(__name__)

GONE = 410


@dataclass(frozen=True)
class Event:
    """One watch event, stamped on arrival."""

    kind: str
    """What the pump watches: `pod` or `workflow`."""
    type: str
    """ADDED, MODIFIED or DELETED; LISTED for objects found by the initial list."""
    obj: Json
    boot: float
    wall: float


@dataclass(frozen=True)
class WatchFailed:
    """A pump stopped on an error; the main loop raises it."""

    kind: str
    error: BaseException


Item = Event | WatchFailed


class Pump:
    """List then watch one kind of object, putting stamped events on `out`."""

    def __init__(
        self,
        *,
        kind: str,
        list_call: Callable[..., Any],
        label_selector: str,
        out: queue.Queue[Item],
        watch_window: float,
        api_call: float,
    ) -> None:
        self.kind = kind
        self._list_call = list_call
        self._selector = label_selector
        self._out = out
        self._window = watch_window
        self._api_call = api_call
        self._stop = threading.Event()
        self.ready = threading.Event()
        """Set once the initial list is done: events from then on are not missed."""
        self._thread = threading.Thread(
            target=self._run, name=f"bench-watch-{kind}", daemon=True
        )

    def start(self) -> None:
        """Start listing and watching."""
        self._thread.start()

    def stop(self) -> None:
        """Ask the pump to stop; it notices within one watch window."""
        self._stop.set()

    def join(self) -> bool:
        """Wait (bounded by one watch window) for the thread; return whether it ended."""
        self._thread.join(timeout=self._window + 5.0)
        return not self._thread.is_alive()

    def _emit(self, event_type: str, obj: Json) -> None:
        self._out.put(
            Event(
                kind=self.kind,
                type=event_type,
                obj=obj,
                boot=moments.boottime(),
                wall=time.time(),
            )
        )

    def _list(self) -> str:
        response = self._list_call(
            label_selector=self._selector,
            _preload_content=False,
            _request_timeout=self._api_call,
        )
        body = json.loads(response.data)
        for obj in body.get("items") or []:
            self._emit("LISTED", obj)
        return str(body["metadata"]["resourceVersion"])

    def _run(self) -> None:
        try:
            self._watch()
        except Exception as exc:
            # Deliberately broad: any failure is handed to the main loop, which raises it.
            self._out.put(WatchFailed(kind=self.kind, error=exc))

    def _watch(self) -> None:
        version = self._list()
        self.ready.set()
        window = max(1, int(self._window))
        while not self._stop.is_set():
            stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                self._list_call,
                label_selector=self._selector,
                resource_version=version,
                allow_watch_bookmarks=True,
                timeout_seconds=window,
                _request_timeout=window + self._api_call,
                deserialize=False,
            )
            try:
                for raw in stream:
                    boot, wall = moments.boottime(), time.time()
                    obj = raw.get("object") or {}
                    version = obj.get("metadata", {}).get("resourceVersion", version)
                    if raw.get("type") != "BOOKMARK":
                        self._out.put(
                            Event(self.kind, raw["type"], obj, boot=boot, wall=wall)
                        )
                    if self._stop.is_set():
                        break
            except ApiException as exc:
                if exc.status != GONE:
                    raise
                logger.info("[%s] Watch expired (410); listing again.", self.kind)
                version = self._list()
