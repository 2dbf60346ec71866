"""Record every version of a namespace's objects while a scenario acts.

Some clauses are about versions a test cannot ask for later: the first version
of a pod (its ADDED event), every version a pod ever had, or pods that existed
only between two controller restarts. `Recorder` lists once on entry (so
nothing created after `__enter__` is missed), then watches from that list's
resourceVersion in a background thread until exit, re-listing after 410 Gone
(`harness.cluster.listwatch`, the engine chaos's history recorder shares).
Objects are stored as API JSON (camelCase dicts), for core and custom
resources alike. A failure of the thread is raised on exit as a HarnessError.

A DELETED event carries the object as it was before the deletion, which for a
pod released by removing its last finalizer still lists that finalizer; judge
"gone" by the event kind, not by the object. `pods_by_node()` and
`phase_regressions()` read a finished recording for the RECOVERY clauses.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from conformance import contract
from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster import listwatch
from conformance.harness.cluster import watching
from conformance.harness.cluster.timeouts import Timeouts
from plumbing.waiting import NotYet

logger = logging.getLogger(__name__)

WATCH_SECONDS = 2
"""Server-side timeout of one watch request: the recorder watches on from the
last version at each stream end, so short streams cost no listings."""


@dataclass(frozen=True)
class Event:
    """One observed version: `LISTED`, `ADDED`, `MODIFIED` or `DELETED`."""

    kind: str
    obj: dict[str, Any]

    @property
    def uid(self) -> str:
        """The object's uid."""
        return str(self.obj["metadata"].get("uid", ""))


class Recorder:
    """Background list+watch of one resource in one namespace, kept in memory.

    The sink of a `listwatch.ListWatch` that watches on from the last version
    at each stream end: its events are the listing's (LISTED) and the watch's.
    """

    def __init__(
        self, api: Any, list_fn: Callable[..., Any], *args: Any, kind: str = "object"
    ) -> None:
        self._api = api
        self._args = args
        self._events: list[Event] = []
        self._lock = threading.Lock()
        source = listwatch.KubeSource(
            kind=kind,
            api_version="",
            api_client=api,
            list_fn=list_fn,
            args=args,
            watch_timeout_seconds=WATCH_SECONDS,
            bookmarks=False,
        )
        self._engine = listwatch.ListWatch(
            [source], name="wpc-recorder", relist_at_stream_end=False
        )

    @staticmethod
    def _private_api(clients: kube.Clients) -> Any:
        # A client of its own: `kubernetes.stream` swaps `call_api` on the
        # ApiClient it is given while an exec runs, which would hijack this
        # thread's requests if the test's client were shared.
        from kubernetes import client

        return client.ApiClient(clients.api.configuration)

    @classmethod
    def pods(cls, clients: kube.Clients, namespace: str) -> Recorder:
        """Record the namespace's pods."""
        from kubernetes import client

        api = cls._private_api(clients)
        return cls(
            api, client.CoreV1Api(api).list_namespaced_pod, namespace, kind="Pod"
        )

    @classmethod
    def workflows(cls, clients: kube.Clients, namespace: str) -> Recorder:
        """Record the namespace's Workflows."""
        return cls._custom(clients, namespace, contract.WORKFLOWS, "Workflow")

    @classmethod
    def task_results(cls, clients: kube.Clients, namespace: str) -> Recorder:
        """Record the namespace's WorkflowTaskResults."""
        return cls._custom(
            clients, namespace, contract.TASK_RESULTS, "WorkflowTaskResult"
        )

    @classmethod
    def _custom(
        cls, clients: kube.Clients, namespace: str, plural: str, kind: str
    ) -> Recorder:
        from kubernetes import client

        api = cls._private_api(clients)
        return cls(
            api,
            client.CustomObjectsApi(api).list_namespaced_custom_object,
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            namespace,
            plural,
            kind=kind,
        )

    def events(self) -> list[Event]:
        """Everything observed so far, in order."""
        with self._lock:
            return list(self._events)

    def listed(self, source: listwatch.Source, listing: listwatch.Listing) -> None:
        """The engine's sink: each listed object as a LISTED event."""
        with self._lock:
            self._events.extend(Event("LISTED", dict(item)) for item in listing.items)

    def watched(self, source: listwatch.Source, event: listwatch.WatchEvent) -> None:
        """The engine's sink: one watch event as it came."""
        with self._lock:
            self._events.append(Event(event.type, event.object))

    def __enter__(self) -> Recorder:
        self._engine.start(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        failures = self._engine.stop()
        self._api.close()
        if failures and exc is None:
            _, error = failures[0]
            raise HarnessError(
                f"recording {self._args} failed: {type(error).__name__}: {error}"
            ) from error


@contextlib.contextmanager
def pods_and_workflows(
    clients: kube.Clients, namespace: str
) -> Iterator[tuple[Recorder, Recorder]]:
    """Record the namespace's pods and its Workflows, as the RECOVERY clauses need.

    `pods_by_node()` reads the first, `phase_regressions()` the second (#8).
    """
    with (
        Recorder.pods(clients, namespace) as pods,
        Recorder.workflows(clients, namespace) as versions,
    ):
        yield pods, versions


def pods_of_workflow(events: list[Event], workflow: str) -> dict[str, dict[str, Any]]:
    """Pod uid -> its last recorded version, for every pod of `workflow` ever observed."""
    return {
        e.uid: e.obj
        for e in events
        if (e.obj["metadata"].get("labels") or {}).get(contract.WORKFLOW_LABEL)
        == workflow
    }


def settle_pod_counts(
    recorder: Recorder, expected: Mapping[str, int], timeouts: Timeouts
) -> None:
    """Wait until each workflow of `expected` has had exactly its number of pods.

    Three polls in a row: a pod created late (after the workflow ended) shows up
    within them instead of slipping past one lucky read.
    """
    wanted = dict(expected)

    def settled() -> dict[str, int] | NotYet:
        events = recorder.events()
        counts = {name: len(pods_of_workflow(events, name)) for name in wanted}
        return counts if counts == wanted else NotYet(f"pods per workflow {counts}")

    watching.until(
        settled,
        timeout=timeouts.cleanup,
        interval=timeouts.poll_interval,
        consecutive=3,
        describe=f"the workflows to have had {wanted} pods",
    )


def pods_by_node(events: list[Event], workflow: str) -> dict[str, set[str]]:
    """Node ID -> uids of every pod of `workflow` ever observed for it."""
    found: dict[str, set[str]] = {}
    for event in events:
        meta = event.obj["metadata"]
        if (meta.get("labels") or {}).get(contract.WORKFLOW_LABEL) != workflow:
            continue
        node = (meta.get("annotations") or {}).get(contract.NODE_ID, "")
        found.setdefault(node, set()).add(event.uid)
    return found


def phase_regressions(events: list[Event], workflow: str) -> list[str]:
    """Changes of a completed workflow's phase, or of a Succeeded node's phase."""
    problems: list[str] = []
    final: str | None = None
    succeeded: set[str] = set()
    for event in events:
        if event.obj["metadata"].get("name") != workflow or event.kind == "DELETED":
            continue
        status = event.obj.get("status") or {}
        phase = status.get("phase")
        if final is not None and phase != final:
            problems.append(f"workflow phase {final} became {phase}")
        if phase in contract.COMPLETED:
            final = phase
        for node_id, node in (status.get("nodes") or {}).items():
            if node.get("phase") == "Succeeded":
                succeeded.add(node_id)
            elif node_id in succeeded:
                problems.append(
                    f"node {node.get('displayName', node_id)} went from Succeeded "
                    f"to {node.get('phase')}"
                )
    return problems
