"""Invariant over pods alive at the same time: one pod per workflow node."""

from __future__ import annotations

from chaos.argo import NODE_ID_ANNOTATION
from chaos.argo import POD_DONE
from chaos.argo import WORKFLOW_LABEL
from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.settings import InvariantSettings
from chaos.invariants.violations import Evidence
from chaos.invariants.violations import ObjectRef
from chaos.invariants.violations import Violation

ONE_LIVE_POD_PER_NODE = "one-live-pod-per-node"


def _alive(record: HistoryRecord) -> bool:
    # A terminating pod (deletionTimestamp set) still runs its containers,
    # so it counts as alive until it is gone or its phase is final.
    return record.type != "DELETED" and record.phase not in POD_DONE


def one_live_pod_per_node(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """Never two live pods for one node id (two runs of one step at once).

    Pods are replayed in history order; a pod is live from its first record
    until it is deleted, vanishes from a re-listing, or reaches Succeeded or
    Failed. Each pair of pods is reported once, at the first moment both
    are live.
    """
    live: dict[str, HistoryRecord] = {}  # uid -> latest record of a live pod
    reported: set[frozenset[str]] = set()
    listed: set[str] = set()
    found: list[Violation] = []
    for record in history.of_kind("Pod"):
        if record.is_list_end:
            for uid in [u for u in live if u not in listed]:
                del live[uid]  # deleted while no watch was open
        if record.type == "BOOKMARK":
            listed = set()
            continue
        if record.type == "RELIST":
            listed.add(record.uid)
        else:
            listed = set()
        if not _alive(record):
            live.pop(record.uid, None)
            continue
        live[record.uid] = record
        node = record.annotations.get(NODE_ID_ANNOTATION)
        if not node:
            continue
        workflow = record.labels.get(WORKFLOW_LABEL, "")
        for uid, other in live.items():
            pair = frozenset({uid, record.uid})
            if uid == record.uid or pair in reported:
                continue
            if other.annotations.get(NODE_ID_ANNOTATION) != node:
                continue
            if other.labels.get(WORKFLOW_LABEL, "") != workflow:
                continue
            reported.add(pair)
            found.append(
                Violation(
                    ONE_LIVE_POD_PER_NODE,
                    ObjectRef.of(record),
                    f"pods {other.name} and {record.name} of workflow "
                    f"{workflow or '?'} are both live for node {node}",
                    Evidence.of(other, record),
                )
            )
    return found
