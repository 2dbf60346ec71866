"""Render a history as one self-contained HTML page (inline CSS and SVG).

One row per pod (phase), per container (waiting/running/terminated) and per
workflow node (phase), on a shared time axis in seconds from the start; the
fault window, when given, is shaded across every row. Hovering a bar shows
its state and times (SVG <title>), so the page needs no script.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from html import escape
from pathlib import Path

from chaos.history import History
from chaos.spans import Row
from chaos.spans import node_rows
from chaos.spans import pod_rows

LABEL_WIDTH = 340
PLOT_WIDTH = 900
ROW_HEIGHT = 18
AXIS_HEIGHT = 34
TICK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600)
MAX_TICKS = 12

COLORS = {
    "pending": "#f2c94c",
    "waiting": "#f2c94c",
    "running": "#2f80ed",
    "succeeded": "#27ae60",
    "completed": "#27ae60",
    "failed": "#eb5757",
    "error": "#9b1c1c",
    "skipped": "#bdbdbd",
    "omitted": "#bdbdbd",
}
OTHER_COLOR = "#828282"

CSS = """
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 17px; margin: 0 0 4px; }
p.meta { margin: 0 0 12px; color: #555; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
svg text.group { font-weight: 600; }
svg line.tick { stroke: #ddd; }
svg rect.fault { fill: rgba(235, 87, 87, 0.15); stroke: #eb5757; stroke-dasharray: 4 3; }
svg text.fault { fill: #b42318; font-weight: 600; }
svg rect.bar { stroke: #fff; stroke-width: 0.5; }
"""


@dataclass(frozen=True)
class FaultWindow:
    """When the fault was active (unix seconds) and what it was."""

    start: float
    end: float
    label: str


def _color(state: str) -> str:
    word = state.split(":")[0].split(" ")[0].lower()
    if word == "terminated":
        # "terminated: <reason> (<exit code>)": green only for a clean exit.
        return COLORS["succeeded"] if state.endswith("(0)") else COLORS["failed"]
    return COLORS.get(word, OTHER_COLOR)


def _tick_step(duration: float) -> int:
    return next((s for s in TICK_STEPS if duration / s <= MAX_TICKS), TICK_STEPS[-1])


def _groups(history: History) -> list[tuple[str, list[Row]]]:
    return [
        ("Pods and containers", pod_rows(history)),
        ("Workflow nodes", node_rows(history)),
    ]


def render_timeline(
    history: History, fault: FaultWindow | None = None, *, title: str = ""
) -> str:
    """The HTML page for `history`, with `fault` shaded when given."""
    t0, t1 = history.start, history.end
    if fault is not None:
        t0, t1 = min(t0, fault.start), max(t1, fault.end)
    span = max(t1 - t0, 1.0)

    def x(t: float) -> float:
        return LABEL_WIDTH + (t - t0) / span * PLOT_WIDTH

    body: list[str] = []
    y = AXIS_HEIGHT
    for group, rows in _groups(history):
        body.append(f'<text class="group" x="4" y="{y + 13}">{escape(group)}</text>')
        y += ROW_HEIGHT
        for row in rows:
            indent = 20 if row.group == "container" else 8
            body.append(f'<text x="{indent}" y="{y + 13}">{escape(row.label)}</text>')
            for bar in row.spans:
                width = max(x(bar.end) - x(bar.start), 1.0)
                tip = f"{row.label}: {bar.state}, +{bar.start - t0:.1f} s to +{bar.end - t0:.1f} s"
                body.append(
                    f'<rect class="bar" x="{x(bar.start):.1f}" y="{y + 2}" '
                    f'width="{width:.1f}" height="{ROW_HEIGHT - 4}" '
                    f'fill="{_color(bar.state)}"><title>{escape(tip)}</title></rect>'
                )
            y += ROW_HEIGHT
    height = y + 8

    axis: list[str] = []
    step = _tick_step(span)
    for second in range(0, int(span) + 1, step):
        tx = x(t0 + second)
        axis.append(
            f'<line class="tick" x1="{tx:.1f}" y1="{AXIS_HEIGHT - 6}" x2="{tx:.1f}" y2="{height}"/>'
        )
        axis.append(f'<text x="{tx + 2:.1f}" y="{AXIS_HEIGHT - 10}">+{second}s</text>')

    shade: list[str] = []
    if fault is not None:
        fx, fw = x(fault.start), max(x(fault.end) - x(fault.start), 1.0)
        tip = f"fault: {fault.label}, +{fault.start - t0:.1f} s to +{fault.end - t0:.1f} s"
        shade.append(
            f'<rect class="fault" x="{fx:.1f}" y="{AXIS_HEIGHT - 6}" width="{fw:.1f}" '
            f'height="{height - AXIS_HEIGHT + 6}"><title>{escape(tip)}</title></rect>'
        )
        shade.append(
            f'<text class="fault" x="{fx + 3:.1f}" y="12">{escape(fault.label)}</text>'
        )

    started = datetime.datetime.fromtimestamp(t0, tz=datetime.UTC).isoformat(
        timespec="seconds"
    )
    heading = title or f"History {history.path}"
    svg_width = LABEL_WIDTH + PLOT_WIDTH + 20
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{escape(heading)}</title><style>{CSS}</style></head><body>",
            f"<h1>{escape(heading)}</h1>",
            f'<p class="meta">start {escape(started)}; {span:.1f} s; '
            f"{len(history.records)} history lines</p>",
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{svg_width}" height="{height}">',
            *axis,
            *shade,
            *body,
            "</svg></body></html>",
            "",
        ]
    )


def write_timeline(
    path: Path | str,
    history: History,
    fault: FaultWindow | None = None,
    *,
    title: str = "",
) -> Path:
    """Render and write the page; returns the path written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_timeline(history, fault, title=title), encoding="utf-8")
    return target
