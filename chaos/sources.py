"""What the recorder lists and watches: one `Source` per resource kind.

The recorder only needs three operations, so tests replace the API server
with a fake `Source` and the recorder's relist logic is tested without a
cluster. `KubeSource` is the real one, built on the kubernetes client; every
object it hands over is API JSON (camelCase dicts), for core and custom
resources alike.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from typing import Protocol

from chaos.errors import ResourceGone

logger = logging.getLogger(__name__)

WORKFLOW_GROUP = "argoproj.io"
WORKFLOW_VERSION = "v1alpha1"
GONE = 410
WATCH_TIMEOUT_SECONDS = 300
"""Server-side length of one watch. The recorder lists again at every stream
end, so this bounds how stale a missed deletion can get without making the
history a string of relists; `stop()` interrupts a running watch anyway."""


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
    """One resource kind in one namespace, as the recorder sees it."""

    @property
    def kind(self) -> str:
        """The kind written in each history line ("Pod", "Workflow", ...)."""

    @property
    def list_kind(self) -> dict[str, str]:
        """apiVersion and kind of the list envelope ("PodList", ...)."""

    def list(self) -> Listing:
        """List every object now."""

    def watch(self, resource_version: str) -> Iterator[WatchEvent]:
        """Events after `resource_version`; raises `ResourceGone` on 410."""

    def interrupt(self) -> None:
        """End a running `watch()` soon; called from another thread."""


class KubeSource:
    """A namespaced list function of the kubernetes client, as a `Source`."""

    def __init__(
        self,
        *,
        kind: str,
        api_version: str,
        api_client: Any,
        list_fn: Callable[..., Any],
        args: tuple[Any, ...],
        watch_timeout_seconds: int = WATCH_TIMEOUT_SECONDS,
    ) -> None:
        self._kind = kind
        self._api_version = api_version
        self._api_client = api_client
        self._list_fn = list_fn
        self._args = args
        self._timeout = watch_timeout_seconds
        self._lock = threading.Lock()
        self._closed = False
        self._watch: Any = None

    @property
    def kind(self) -> str:
        """The kind written in each history line."""
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
        try:
            # timeout_seconds also makes the client raise 410 instead of
            # silently retrying, which is what lets the recorder re-list.
            for event in stream_watch.stream(  # type: ignore[no-untyped-call]
                self._list_fn,
                *self._args,
                resource_version=resource_version,
                timeout_seconds=self._timeout,
                allow_watch_bookmarks=True,
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


def namespace_sources(
    api_client: Any,
    namespace: str,
    *,
    watch_timeout_seconds: int = WATCH_TIMEOUT_SECONDS,
) -> list[KubeSource]:
    """Workflows, Pods, WorkflowTaskResults and Events of one namespace."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client)
    argo = f"{WORKFLOW_GROUP}/{WORKFLOW_VERSION}"
    plural = (WORKFLOW_GROUP, WORKFLOW_VERSION, namespace)
    common: dict[str, Any] = {
        "api_client": api_client,
        "watch_timeout_seconds": watch_timeout_seconds,
    }
    return [
        KubeSource(
            kind="Workflow",
            api_version=argo,
            list_fn=custom.list_namespaced_custom_object,
            args=(*plural, "workflows"),
            **common,
        ),
        KubeSource(
            kind="Pod",
            api_version="v1",
            list_fn=core.list_namespaced_pod,
            args=(namespace,),
            **common,
        ),
        KubeSource(
            kind="WorkflowTaskResult",
            api_version=argo,
            list_fn=custom.list_namespaced_custom_object,
            args=(*plural, "workflowtaskresults"),
            **common,
        ),
        KubeSource(
            kind="Event",
            api_version="v1",
            list_fn=core.list_namespaced_event,
            args=(namespace,),
            **common,
        ),
    ]
