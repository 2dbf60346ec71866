"""Invariants over one workflow's own versions: it ends, its nodes go forward."""

from __future__ import annotations

from chaos.argo import NODE_TERMINAL
from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.replay import Track
from chaos.invariants.replay import tracks
from chaos.invariants.settings import InvariantSettings
from chaos.invariants.violations import Evidence
from chaos.invariants.violations import ObjectRef
from chaos.invariants.violations import Violation

TERMINAL_WITHIN_DEADLINE = "terminal-within-deadline"
NODE_PHASES_MONOTONIC = "node-phases-monotonic"

_RANK = {"Pending": 0, "Running": 1, **dict.fromkeys(NODE_TERMINAL, 2)}
"""Node phase order; the terminal phases share the top rank."""


def _late(
    track: Track, history: History, limit: float
) -> tuple[str, tuple[HistoryRecord, ...]] | None:
    """Why a workflow missed its deadline, and the records that show it."""
    first, terminal = track.first, track.terminal()
    if terminal is not None:
        took = terminal.received - first.received
        if took <= limit:
            return None
        message = f"reached {terminal.phase} after {took:.1f} s (deadline {limit:g} s)"
        return message, (first, terminal)
    last_phase = track.last.phase or "no phase"
    if track.gone is not None:
        lived = track.gone.received - first.received
        if lived <= limit:
            return None  # deleted in time: it owed no ending
        message = (
            f"deleted after {lived:.1f} s without a terminal phase "
            f"(last {last_phase}; deadline {limit:g} s)"
        )
        return message, (first, track.last, track.gone)
    observed = history.end - first.received
    message = (
        f"not terminal when the history ends, {observed:.1f} s after it was "
        f"first seen (last {last_phase}; deadline {limit:g} s)"
    )
    return message, (first, track.last)


def terminal_within_deadline(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """Every workflow reaches Succeeded, Failed or Error within the deadline.

    Measured from the workflow's first record to its first terminal one. A
    workflow never terminal is a violation unless it was deleted before its
    deadline (someone removed it; it owed no ending). One still running when
    the history ends is a violation too: the recording is meant to outlast
    the experiment, so an unfinished workflow is a stalled one.
    """
    found: list[Violation] = []
    for track in tracks(history, "Workflow"):
        late = _late(track, history, settings.deadline_seconds)
        if late is not None:
            message, records = late
            found.append(
                Violation(
                    TERMINAL_WITHIN_DEADLINE, track.ref, message, Evidence.of(*records)
                )
            )
    return found


def node_phases_monotonic(
    history: History, settings: InvariantSettings
) -> list[Violation]:
    """A node's phase only moves forward, and a fulfilled phase never changes.

    Order: Pending < Running < {Succeeded, Failed, Error, Skipped, Omitted}.
    Each node is compared with its previous observed phase; phases this
    order does not know are ignored rather than guessed at. A completed node
    whose task result is not yet synced (`taskResultSynced: false`) is not
    fulfilled (Argo's `NodeStatus.Fulfilled`), and may still change: when its
    pod vanishes, upstream marks it `Error: pod deleted` (v4.1.2,
    workflow/controller/operator.go, podReconciliation's missing-pod loop skips
    only fulfilled nodes), as after a worker node is deleted.
    """
    found: list[Violation] = []
    for track in tracks(history, "Workflow"):
        seen: dict[str, tuple[str, HistoryRecord, bool]] = {}
        for version in track.versions:
            nodes = version.status.get("nodes") or {}
            for node_id, node in nodes.items():
                phase = str(node.get("phase") or "")
                if phase not in _RANK:
                    continue
                before = seen.get(node_id)
                fulfilled = (
                    phase in NODE_TERMINAL and node.get("taskResultSynced") is not False
                )
                seen[node_id] = (phase, version, fulfilled)
                if before is None or before[0] == phase:
                    continue
                old, old_record, was_fulfilled = before
                if _RANK[phase] >= _RANK[old] and not was_fulfilled:
                    continue
                label = node.get("displayName") or node_id
                found.append(
                    Violation(
                        NODE_PHASES_MONOTONIC,
                        ObjectRef.of(version),
                        f"node {label} ({node_id}) went from {old} to {phase}",
                        Evidence.of(old_record, version),
                    )
                )
    return found
