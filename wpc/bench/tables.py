"""The printed tables: a run's layouts side by side, or two runs per layout.

Each column is one layout entry of a `BenchResult`; a ratio column divides
one column by another (medians and throughput only: a ratio of p90s of ten
samples says little; none for medians below `figures.RATIO_FLOOR`).
Durations are seconds, `median / p90`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wpc.bench import figures
from wpc.bench import samples

Entry = dict[str, Any]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _pair(summary: dict[str, Any]) -> str:
    return f"{_seconds(summary['median'])} / {_seconds(summary['p90'])}"


def _rows(entry: Entry) -> list[tuple[str, str, float | None]]:
    """(label, cell, value a ratio divides) for every row of one column."""
    rate = entry["workflowsPerMinute"]
    load = entry.get("load") or {}
    before = (load.get("before") or {}).get("loadavg_1_5_15")
    after = (load.get("after") or {}).get("loadavg_1_5_15")
    rows: list[tuple[str, str, float | None]] = [
        (
            "workflows",
            f"{entry['succeeded']}/{entry['workflows']} ok, {entry['failed']} failed",
            None,
        ),
        ("in flight", str(entry["inflight"]), None),
        ("makespan (s)", _seconds(entry["makespanSeconds"]), entry["makespanSeconds"]),
        ("workflows per minute", "-" if rate is None else f"{rate:.1f}", rate),
        (
            "pod startup: created -> main's 1st instr. (median / p90 s)",
            _pair(entry["podStartup"]),
            entry["podStartup"]["median"],
        ),
    ]
    for phase, title in samples.PHASE_TITLES.items():
        summary = entry["phases"][phase]
        rows.append((f"  {title}", _pair(summary), summary["median"]))
    rows += [
        ("submit -> pod created", _pair(entry["submitToPod"]), None),
        (
            "submit -> workflow finished",
            _pair(entry["workflowDuration"]),
            entry["workflowDuration"]["median"],
        ),
        (
            "load 1m before -> after",
            f"{before[0]:.1f} -> {after[0]:.1f}" if before and after else "-",
            None,
        ),
    ]
    return rows


def _ratio(top: float | None, bottom: float | None) -> str:
    value = figures.ratio(top, bottom)
    return "" if value is None else f"{value:.2f}"


def render(
    columns: Sequence[tuple[str, Entry]],
    *,
    ratio: tuple[int, int] | None = None,
) -> str:
    """A fixed-width table, one column per entry, and `columns[i] / columns[j]`."""
    built = [_rows(entry) for _, entry in columns]
    header = ["", *(title for title, _ in columns)]
    if ratio is not None:
        top, bottom = ratio
        header.append(f"{columns[top][0]} / {columns[bottom][0]}")
    cells = []
    for i, (label, _, _) in enumerate(built[0] if built else []):
        row = [label, *(column[i][1] for column in built)]
        if ratio is not None:
            row.append(_ratio(built[ratio[0]][i][2], built[ratio[1]][i][2]))
        cells.append(row)
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *cells]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    failures = [
        f"  {title}: {f['workflow']}: {f['reason']}"
        for title, entry in columns
        for f in entry["failures"]
    ]
    evidence = [
        f"  {title}: {entry['evidence']}"
        for title, entry in columns
        if entry.get("evidence")
    ]
    if failures:
        lines += ["", "failures:", *failures]
    if evidence:
        lines += ["", "evidence:", *evidence]
    return "\n".join(lines) + "\n"


def run_table(document: dict[str, Any]) -> str:
    """One run: a column per layout, and init-less / legacy when it has both."""
    names = list(document["layouts"])
    columns = [(name, document["layouts"][name]) for name in names]
    ratio = None
    if "legacy" in names and "initless" in names:
        ratio = (names.index("initless"), names.index("legacy"))
    title = (
        f"{document['implementation']['name']} {document['implementation']['version']}"
        f" (session {document['sessionId']})\n"
    )
    return title + render(columns, ratio=ratio)


def compare_table(first: dict[str, Any], second: dict[str, Any]) -> str:
    """Two runs, per layout both have: their columns and first / second."""
    a = first["implementation"]["name"]
    b = second["implementation"]["name"]
    if a == b:
        a, b = f"{a} ({first['sessionId']})", f"{b} ({second['sessionId']})"
    parts = []
    for layout in [name for name in first["layouts"] if name in second["layouts"]]:
        columns = [(a, first["layouts"][layout]), (b, second["layouts"][layout])]
        parts.append(f"layout {layout}\n" + render(columns, ratio=(0, 1)))
    return "\n".join(parts) if parts else "the two runs share no layout\n"
