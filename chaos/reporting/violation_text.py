"""Violations as text: YAML for machines, a table for people."""

from __future__ import annotations

from collections.abc import Sequence

import yaml

from chaos.invariants.violations import Violation

MESSAGE_WIDTH = 72
"""Wide enough for most messages on one line, narrow enough for a terminal."""


def as_yaml(
    history: str, checked: Sequence[str], violations: Sequence[Violation]
) -> str:
    """The check's result as a YAML document."""
    document = {
        "history": history,
        "invariantsChecked": list(checked),
        "violations": [v.to_dict() for v in violations],
    }
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*lines, current] if current else [""]


def as_table(
    history: str, checked: Sequence[str], violations: Sequence[Violation]
) -> str:
    """The check's result as an aligned plain-text table."""
    summary = (
        f"{len(violations)} violation(s) of {len(checked)} invariant(s) in {history}\n"
    )
    if not violations:
        return summary
    header = ("INVARIANT", "OBJECT", "LINES", "MESSAGE")
    rows = [
        (
            v.invariant,
            str(v.object),
            ",".join(str(n) for n in v.evidence.lines),
            v.message,
        )
        for v in violations
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    out: list[str] = []
    for row in [header, *rows]:
        first, *rest = _wrap(row[3], MESSAGE_WIDTH)
        cells = [row[i].ljust(widths[i]) for i in range(3)]
        out.append("  ".join([*cells, first]).rstrip())
        pad = " " * (sum(widths) + 2 * 3)
        out.extend(pad + more for more in rest)
    return "\n".join(out) + "\n\n" + summary
