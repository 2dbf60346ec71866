"""The controller-wide `parallelism` limit: which workflows may start now.

Why a module of its own: the limit is a decision across workflows, while everything
else a worker does concerns one workflow (the work queue gives each key to one worker
at a time, so nothing else needs a lock). Admission is the one place where two workers
could both take the last free slot; the lock here, and only here, prevents that.

How upstream (v4.1.2) behaves, and so this controller:

- A workflow not yet started (phase empty, `Unknown` or `Pending`) is admitted only
  while fewer than `parallelism` workflows run; waiting ones go oldest first
  (creationTimestamp, then name). 0 means no limit.
- One not admitted that has no phase yet is marked `Pending` with `POSTPONED_MESSAGE`
  and not reconciled further; when a running one completes or is deleted, or the limit
  changes, the waiting ones are queued again.
- A `Running` workflow is always reconciled, whatever the limit (upstream #14606), and
  so is one being terminated (`spec.shutdown: Terminate`).

What counts as running comes from the cluster, not from memory: the cached workflows
whose phase is `Running` and that are not labelled completed, plus the ones this
process admitted but has not yet stored as `Running` (the window between admission and
the write). So a restart, or a limit changed while workflows run, needs no bookkeeping.

Under the fault `throttle-running` (upstream #14123, v3.7.0-rc3 and v4.0.0 to v4.0.8)
the admitted set is the only record: seeded once at start-up from the workflows
labelled `workflows.argoproj.io/phase=Running`, grown only by admissions under a limit,
and any workflow outside it, a Running one too, waits like a new one.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any
from typing import Protocol

from reference_impl import common
from reference_impl.controller.machinery.watching import key_of
from reference_impl.controller.templates.nodes import inference

Json = dict[str, Any]

NOT_STARTED = frozenset({"", "Unknown", "Pending"})
"""Workflow phases before the first reconciliation that marks a workflow Running."""
POSTPONED_MESSAGE = "Workflow processing has been postponed because too many workflows are already running"
"""Upstream's `status.message` on a workflow the limit holds back."""


class Cache(Protocol):
    """The part of the workflow informer admission reads."""

    def items(self) -> list[Json]:
        """Return copies of every cached workflow."""
        ...


class Throttle:
    """Admits workflows under the ConfigMap's `parallelism`, read at each decision."""

    def __init__(
        self,
        *,
        cache: Cache,
        limit: Callable[[], int],
        enqueue: Callable[[str], None],
        label_seeded: bool = False,
    ) -> None:
        self._cache, self._limit, self._enqueue = cache, limit, enqueue
        # `throttle-running` (a fault): the admitted set alone says what runs.
        self._label_seeded = label_seeded
        self._lock = threading.Lock()
        # Keys admitted by this process and not yet released. Correct: only those not
        # yet stored Running matter (the cache counts the rest), so it stays small.
        self._admitted: set[str] = set()

    def seed(self) -> None:
        """Under `throttle-running`, take the workflows labelled Running as admitted.

        Once, at start-up, once the workflow cache has synced (upstream's throttler
        lists by that label). A correct controller needs no seed: it counts the cache.
        """
        if not self._label_seeded:
            return
        labelled = {
            key_of(w)
            for w in self._cache.items()
            if _labels(w).get(common.LABEL_PHASE) == "Running" and not _completed(w)
        }
        with self._lock:
            self._admitted |= labelled

    def admit(self, key: str, workflow: Json) -> bool:
        """Whether the workflow may be reconciled now; False leaves it waiting.

        Called for workflows not labelled completed. When slots are free, the oldest
        waiting workflows take them, which may not include this one: those admitted
        instead are queued, so they start without waiting for an event of their own.
        """
        if _terminating(workflow):
            return True
        if not self._label_seeded and _phase(workflow) not in NOT_STARTED:
            return True  # Running: always reconciled (upstream #14606)
        limit = self._limit()
        with self._lock:
            if key in self._admitted:
                return True
            if limit <= 0:
                if not self._label_seeded:
                    # Recorded, so a limit set before it is stored Running counts it.
                    self._admitted.add(key)
                return True
            chosen = self._choose(key, workflow, limit)
            self._admitted.update(chosen)
        for other in chosen:
            if other != key:
                self._enqueue(other)
        return key in chosen

    def release(self, key: str) -> None:
        """The workflow completed or was deleted: its slot is free for a waiting one."""
        with self._lock:
            self._admitted.discard(key)
        if self._limit() > 0:
            self.wake()

    def wake(self) -> None:
        """Queue every waiting workflow (a slot freed, or the limit changed).

        All of them, not just the next: each is admitted or not by `admit`, which picks
        the oldest, so the order in which the workers take them does not matter.
        """
        with self._lock:
            admitted = set(self._admitted)
        for workflow in self._cache.items():
            if self._waits(workflow, admitted):
                self._enqueue(key_of(workflow))

    def _choose(self, key: str, workflow: Json, limit: int) -> list[str]:
        """The oldest waiting workflows that fit in the free slots (lock held)."""
        cached = self._cache.items()
        self._prune(cached)
        free = limit - len(self._running(cached))
        if free <= 0:
            return []
        waiting = {key_of(w): w for w in cached if self._waits(w, self._admitted)}
        waiting[key] = workflow
        return sorted(waiting, key=lambda k: _age(waiting[k]))[:free]

    def _prune(self, cached: list[Json]) -> None:
        """Forget admitted workflows that are gone or completed (lock held)."""
        live = {key_of(w) for w in cached if not _completed(w)}
        self._admitted &= live

    def _running(self, cached: list[Json]) -> set[str]:
        """The keys that take a slot (lock held)."""
        if self._label_seeded:
            return set(self._admitted)
        stored = {
            key_of(w) for w in cached if _phase(w) == "Running" and not _completed(w)
        }
        return stored | self._admitted

    def _waits(self, workflow: Json, admitted: set[str]) -> bool:
        """Whether the workflow waits for a slot (`throttle-running`: Running ones too)."""
        if _completed(workflow) or _terminating(workflow):
            return False
        if key_of(workflow) in admitted:
            return False
        return self._label_seeded or _phase(workflow) in NOT_STARTED


def postponed(workflow: Json) -> Json | None:
    """The workflow marked `Pending` with `POSTPONED_MESSAGE`, or None to leave it be.

    Only a workflow with no phase yet is marked (as upstream): one already `Pending`
    carries the message, and a Running one held back under `throttle-running` gets no
    status change, it is just not reconciled.
    """
    if _phase(workflow) not in ("", "Unknown"):
        return None
    changed = copy.deepcopy(workflow)
    status = changed.setdefault("status", {})
    status["phase"], status["message"] = "Pending", POSTPONED_MESSAGE
    labels = changed["metadata"].setdefault("labels", {})
    # As `reconciling.mark_workflow_phase` labels every phase it writes.
    labels[common.LABEL_PHASE] = "Pending"
    labels.setdefault(common.LABEL_COMPLETED, "false")
    return changed


def _phase(workflow: Json) -> str:
    return str((workflow.get("status") or {}).get("phase") or "")


def _labels(workflow: Json) -> dict[str, str]:
    return dict((workflow.get("metadata") or {}).get("labels") or {})


def _completed(workflow: Json) -> bool:
    return (
        _labels(workflow).get(common.LABEL_COMPLETED) == "true"
        or _phase(workflow) in inference.COMPLETED
    )


def _terminating(workflow: Json) -> bool:
    return (workflow.get("spec") or {}).get("shutdown") == "Terminate"


def _age(workflow: Json) -> tuple[str, str, str]:
    """Oldest first: creationTimestamp (RFC 3339 UTC sorts as text), then name."""
    meta = workflow.get("metadata") or {}
    return (
        str(meta.get("creationTimestamp") or ""),
        str(meta.get("name") or ""),
        str(meta.get("namespace") or ""),
    )
