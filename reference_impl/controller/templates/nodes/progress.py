"""Workflow and node `progress` ("N/M"), summed the way Argo's `workflow/progress` does it.

Pod nodes carry their own progress (the executor reports it; `0/1` by default and `M/M`
once succeeded); every other node, and the workflow, is the sum over its pod descendants.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

EXECUTABLE = frozenset({"Pod", "Container"})


def parse(value: Any) -> tuple[int, int] | None:
    """Return (done, total) for a valid progress string, else None."""
    if not isinstance(value, str) or "/" not in value:
        return None
    done, _, total = value.partition("/")
    try:
        n, m = int(done), int(total)
    except ValueError:
        return None
    return (n, m) if 0 <= n <= m and m > 0 else None


def update(status: Json) -> None:
    """Complete succeeded pod nodes, then sum progress into parents and the workflow."""
    nodes: dict[str, Json] = status.get("nodes") or {}
    done = total = 0
    for node in nodes.values():
        if node.get("type") not in EXECUTABLE:
            continue
        node.setdefault("progress", "0/1")
        parsed = parse(node["progress"])
        if parsed is None:
            continue
        if node.get("phase") in ("Succeeded", "Skipped", "Omitted"):
            parsed = (parsed[1], parsed[1])
            node["progress"] = f"{parsed[1]}/{parsed[1]}"
        done, total = done + parsed[0], total + parsed[1]
    status["progress"] = f"{done}/{total}"
    for node in nodes.values():
        if node.get("type") in EXECUTABLE:
            continue
        summed = _sum(nodes, node, set())
        if parse(f"{summed[0]}/{summed[1]}") is not None:
            node["progress"] = f"{summed[0]}/{summed[1]}"


def _sum(nodes: dict[str, Json], node: Json, visited: set[str]) -> tuple[int, int]:
    done = total = 0
    for child_id in node.get("children") or []:
        if child_id in visited or child_id not in nodes:
            continue
        visited.add(child_id)
        child = nodes[child_id]
        below = _sum(nodes, child, visited)
        done, total = done + below[0], total + below[1]
        if child.get("type") in EXECUTABLE and (parsed := parse(child.get("progress"))):
            done, total = done + parsed[0], total + parsed[1]
    return done, total
