"""Watch-based caches (informers): list once, then watch, and tell handlers what changed.

The controller keeps no state of its own: everything it knows comes from these caches,
filled from the API server at start-up, so a restarted controller rebuilds its view from
the cluster. Each informer runs in one thread; handlers run in that thread and must only
enqueue work. A watch that expires (HTTP 410) or breaks is followed by a fresh list
(except under the `no-rewatch-after-outage` fault, `GiveUp`).
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any
from typing import Protocol

from reference_impl.controller import errors

Json = dict[str, Any]
logger = logging.getLogger(__name__)

RETRY_SECONDS = 2.0

EARLY_END = 0.5
"""Under `GiveUp`, a watch that ends sooner than this share of its timeout was cut."""


class Source(Protocol):
    """Where an informer reads from: a list and a watch of one collection."""

    def list_items(self) -> tuple[list[Json], str]:
        """Return the items and the list's resourceVersion."""
        ...

    def watch(self, resource_version: str) -> Iterator[tuple[str, Json]]:
        """Yield (type, object) events after `resource_version`."""
        ...


@dataclasses.dataclass
class Handlers:
    """Callbacks for cache changes; `on_update` receives (old, new)."""

    on_add: Callable[[Json], None] | None = None
    on_update: Callable[[Json, Json], None] | None = None
    on_delete: Callable[[Json], None] | None = None


@dataclasses.dataclass(frozen=True)
class GiveUp:
    """The `no-rewatch-after-outage` fault: a broken watch ends the informer for good.

    Like a hand-written watch loop that returns on its first connection error (or
    on a stream the server closed early, as an API server that shuts down does)
    instead of listing again: after an API-server outage the cache stays frozen at
    what it held before, so no later change of the collection is ever seen.
    Failures before the first list succeeded still retry (start-up is unchanged).
    """

    watch_seconds: float
    """The timeout the server ends a healthy watch at (`timeoutSeconds`)."""
    clock: Callable[[], float] = time.monotonic


class WatchCut(Exception):
    """A watch stream that ended long before its timeout (only raised under `GiveUp`)."""


def key_of(obj: Json) -> str:
    """Return `namespace/name` (or `name` for cluster-scoped objects)."""
    meta = obj.get("metadata") or {}
    return (
        f"{meta['namespace']}/{meta['name']}"
        if meta.get("namespace")
        else str(meta.get("name"))
    )


class Informer:
    """A thread-safe cache of one collection, kept current by list and watch."""

    def __init__(
        self,
        *,
        name: str,
        source: Source,
        handlers: Handlers | None = None,
        indexes: dict[str, Callable[[Json], list[str]]] | None = None,
        give_up: GiveUp | None = None,
    ) -> None:
        self.name = name
        self.give_up = give_up
        """The `no-rewatch-after-outage` fault when set; None in a correct controller."""
        self._source = source
        self._handlers = handlers or Handlers()
        self._indexes = indexes or {}
        self._store: dict[str, Json] = {}
        self._lock = threading.Lock()
        self.synced = threading.Event()

    # -- reading -------------------------------------------------------------------

    def get(self, key: str) -> Json | None:
        """Return a copy of the cached object with this key, or None."""
        with self._lock:
            obj = self._store.get(key)
            return copy.deepcopy(obj) if obj is not None else None

    def items(self) -> list[Json]:
        """Return copies of every cached object."""
        with self._lock:
            return [copy.deepcopy(o) for o in self._store.values()]

    def by_index(self, index: str, value: str) -> list[Json]:
        """Return copies of the cached objects whose index `index` yields `value`."""
        function = self._indexes[index]
        with self._lock:
            return [
                copy.deepcopy(o) for o in self._store.values() if value in function(o)
            ]

    def remember(self, obj: Json) -> None:
        """Store an object the controller just wrote, so the next read is not older than the write."""
        with self._lock:
            self._store[key_of(obj)] = copy.deepcopy(obj)

    # -- running ---------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """List and watch until `stop` is set."""
        while not stop.is_set():
            broke = True
            try:
                version = self.relist()
                self.synced.set()
                self._watch(version, stop)
                broke = False  # the watch expired (HTTP 410), or `stop`
            except errors.ApiError as err:
                logger.warning("Informer %s failed; listing again: %s", self.name, err)
            except WatchCut as err:
                logger.warning("Informer %s: %s", self.name, err)
            except Exception:  # a broken connection must not kill the cache thread
                logger.exception(
                    "Informer %s failed unexpectedly; listing again.", self.name
                )
            if broke and self.give_up is not None and self.synced.is_set():
                logger.error(
                    "Informer %s stops: no list or watch again (fault "
                    "no-rewatch-after-outage).",
                    self.name,
                )
                return
            stop.wait(RETRY_SECONDS)

    def relist(self) -> str:
        """Replace the cache with a fresh list, notify handlers of the differences, return its version."""
        items, version = self._source.list_items()
        fresh = {key_of(o): o for o in items}
        with self._lock:
            old, self._store = self._store, dict(fresh)
        for key, obj in fresh.items():
            if key not in old:
                self._emit_add(obj)
            elif old[key] != obj:
                self._emit_update(old[key], obj)
        for key, obj in old.items():
            if key not in fresh:
                self._emit_delete(obj)
        return version

    def _watch(self, version: str, stop: threading.Event) -> None:
        while not stop.is_set():
            began = self.give_up.clock() if self.give_up is not None else 0.0
            for kind, obj in self._source.watch(version):
                if stop.is_set():
                    return
                if kind == "ERROR":
                    logger.info(
                        "Informer %s watch expired: %s", self.name, obj.get("message")
                    )
                    return
                version = str(
                    (obj.get("metadata") or {}).get("resourceVersion", version)
                )
                if kind == "BOOKMARK":
                    continue
                self.apply(kind, obj)
            self._check_not_cut(began, stop)

    def _check_not_cut(self, began: float, stop: threading.Event) -> None:
        """Under `GiveUp`, raise WatchCut for a watch that ended early."""
        if self.give_up is None or stop.is_set():
            return
        lasted = self.give_up.clock() - began
        if lasted < EARLY_END * self.give_up.watch_seconds:
            raise WatchCut(f"the watch ended after {lasted:.1f} s, before its timeout")

    def apply(self, kind: str, obj: Json) -> None:
        """Apply one watch event to the cache and notify the handlers (also used by tests)."""
        key = key_of(obj)
        with self._lock:
            old = self._store.get(key)
            if kind == "DELETED":
                self._store.pop(key, None)
            else:
                self._store[key] = obj
        if kind == "DELETED":
            self._emit_delete(obj)
        elif old is None:
            self._emit_add(obj)
        else:
            self._emit_update(old, obj)

    def _emit_add(self, obj: Json) -> None:
        if self._handlers.on_add:
            self._call(self._handlers.on_add, obj)

    def _emit_update(self, old: Json, new: Json) -> None:
        if self._handlers.on_update and old.get("metadata", {}).get(
            "resourceVersion"
        ) != new.get("metadata", {}).get("resourceVersion"):
            self._call(self._handlers.on_update, old, new)

    def _emit_delete(self, obj: Json) -> None:
        if self._handlers.on_delete:
            self._call(self._handlers.on_delete, obj)

    def _call(self, handler: Callable[..., None], *args: Json) -> None:
        try:
            handler(*(copy.deepcopy(a) for a in args))
        except Exception:  # one bad handler call must not stop the cache
            logger.exception("Informer %s handler failed.", self.name)
