"""Turn a history into rows of states over time, for the timeline page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chaos.history.records import History
from chaos.history.records import HistoryRecord
from chaos.invariants.replay import Track
from chaos.invariants.replay import tracks


@dataclass(frozen=True)
class Span:
    """One state held from `start` to `end` (unix seconds)."""

    start: float
    end: float
    state: str


@dataclass(frozen=True)
class Row:
    """One line of the timeline: a pod, a container or a workflow node."""

    group: str
    label: str
    spans: tuple[Span, ...]


def _spans(points: list[tuple[float, str]], end: float) -> tuple[Span, ...]:
    """States observed at times -> spans, merging repeats; "" means unknown."""
    spans: list[Span] = []
    for index, (start, state) in enumerate(points):
        stop = points[index + 1][0] if index + 1 < len(points) else end
        if spans and spans[-1].state == state and spans[-1].end == start:
            spans[-1] = Span(spans[-1].start, stop, state)
        else:
            spans.append(Span(start, stop, state))
    return tuple(s for s in spans if s.state)


def _until(track: Track, history: History) -> float:
    return track.gone.received if track.gone is not None else history.end


def _live(track: Track) -> list[HistoryRecord]:
    # A DELETED event repeats the last state; the row ends there instead.
    return [v for v in track.versions if v.type != "DELETED"] or track.versions


def _container_state(status: Mapping[str, Any]) -> str:
    state = status.get("state") or {}
    if "running" in state:
        return "running"
    if "terminated" in state:
        done = state["terminated"] or {}
        return f"terminated: {done.get('reason', '')} ({done.get('exitCode', '?')})"
    if "waiting" in state:
        return f"waiting: {(state['waiting'] or {}).get('reason', '')}"
    return ""


def pod_rows(history: History) -> list[Row]:
    """Per pod: its phase (terminating marked), then one row per container."""
    rows: list[Row] = []
    for track in tracks(history, "Pod"):
        versions, end = _live(track), _until(track, history)
        phases = [
            (
                v.received,
                (v.phase or "Pending")
                + (" (terminating)" if v.metadata.get("deletionTimestamp") else ""),
            )
            for v in versions
        ]
        rows.append(Row("pod", track.first.name, _spans(phases, end)))
        names: dict[str, None] = {}
        for v in versions:
            for key in ("initContainerStatuses", "containerStatuses"):
                names.update(
                    (str(s.get("name")), None) for s in v.status.get(key) or []
                )
        for name in names:
            points = []
            for v in versions:
                statuses = [
                    *(v.status.get("initContainerStatuses") or []),
                    *(v.status.get("containerStatuses") or []),
                ]
                mine: Mapping[str, Any] = next(
                    (s for s in statuses if s.get("name") == name), {}
                )
                points.append((v.received, _container_state(mine)))
            rows.append(
                Row("container", f"{track.first.name} / {name}", _spans(points, end))
            )
    return rows


def node_rows(history: History) -> list[Row]:
    """Per workflow node: its phase over time."""
    rows: list[Row] = []
    for track in tracks(history, "Workflow"):
        versions, end = _live(track), _until(track, history)
        labels: dict[str, str] = {}
        for v in versions:
            for node_id, node in (v.status.get("nodes") or {}).items():
                labels.setdefault(node_id, str(node.get("displayName") or node_id))
        for node_id, label in labels.items():
            points = [
                (
                    v.received,
                    str(
                        ((v.status.get("nodes") or {}).get(node_id) or {}).get("phase")
                        or ""
                    ),
                )
                for v in versions
            ]
            rows.append(
                Row("node", f"{track.first.name} / {label}", _spans(points, end))
            )
    return rows
