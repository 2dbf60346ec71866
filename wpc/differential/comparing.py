"""Every difference between two normalised outcomes of one workflow.

A difference is a path into the outcome (`phase`, `nodes[<wf>[0].a].message`,
`nodes[<wf>[0].a].outputs.parameters.out`) with the value on each side; a node
only one side has is one difference at `nodes[NAME]` (present / absent), not one
per field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]

ABSENT = "<absent>"
PRESENT = "<present>"


@dataclass(frozen=True)
class Difference:
    """One field whose value differs between side A and side B."""

    path: str
    a: Any
    b: Any

    def to_json(self) -> Json:
        """Plain data for the report."""
        return {"path": self.path, "a": self.a, "b": self.b}


def _fields(prefix: str, a: Any, b: Any) -> list[Difference]:
    """Differences of two values; dicts are compared key by key."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[Difference] = []
        for key in sorted(set(a) | set(b), key=str):
            found += _fields(
                f"{prefix}.{key}" if prefix else str(key),
                a.get(key, ABSENT),
                b.get(key, ABSENT),
            )
        return found
    return [] if a == b else [Difference(prefix, a, b)]


def compare(a: Json, b: Json) -> list[Difference]:
    """What differs between outcome `a` and outcome `b` (empty: the same)."""
    found = _fields(
        "",
        {k: v for k, v in a.items() if k != "nodes"},
        {k: v for k, v in b.items() if k != "nodes"},
    )
    nodes_a, nodes_b = a.get("nodes") or {}, b.get("nodes") or {}
    for name in sorted(set(nodes_a) | set(nodes_b)):
        where = f"nodes[{name}]"
        if name not in nodes_b:
            found.append(Difference(where, PRESENT, ABSENT))
        elif name not in nodes_a:
            found.append(Difference(where, ABSENT, PRESENT))
        else:
            found += _fields(where, nodes_a[name], nodes_b[name])
    return found
