"""Render a history as one self-contained HTML page (inline CSS and SVG).

One row per pod (phase), per container (waiting/running/terminated) and per
workflow node (phase), on a shared time axis in seconds from the start; the
fault window, when given, is shaded across every row, and so, in grey, is
what the run waited for before its method (the previous experiment's
aftermath: a controller still coming back). Hovering a bar shows
its state and times (SVG <title>), so the page needs no script.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
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
CHAR_WIDTH = 6.5
"""Roughly one 11 px character: a bar this many characters wide shows its state."""
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
svg rect.fault { fill: rgba(235, 87, 87, 0.18); stroke: #eb5757; stroke-dasharray: 4 3;
  pointer-events: none; }
svg text.fault { fill: #b42318; font-weight: 600; }
svg rect.wait { fill: rgba(130, 130, 130, 0.15); stroke: #828282; stroke-dasharray: 2 3;
  pointer-events: none; }
svg text.wait { fill: #555; font-weight: 600; }
svg rect.bar { stroke: #fff; stroke-width: 0.5; }
svg text.state { fill: #fff; pointer-events: none; }
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


@dataclass(frozen=True)
class _Scale:
    """Unix seconds -> x pixels over the plotted interval."""

    t0: float
    span: float

    def x(self, t: float) -> float:
        return LABEL_WIDTH + (t - self.t0) / self.span * PLOT_WIDTH

    def offset(self, t: float) -> str:
        return f"+{t - self.t0:.1f} s"


def _rows_svg(history: History, scale: _Scale) -> tuple[list[str], int]:
    """The labelled bars, and the y just below the last row."""
    out: list[str] = []
    y = AXIS_HEIGHT
    for group, rows in _groups(history):
        out.append(f'<text class="group" x="4" y="{y + 13}">{escape(group)}</text>')
        y += ROW_HEIGHT
        for row in rows:
            indent = 20 if row.group == "container" else 8
            out.append(f'<text x="{indent}" y="{y + 13}">{escape(row.label)}</text>')
            for bar in row.spans:
                left = scale.x(bar.start)
                width = max(scale.x(bar.end) - left, 1.0)
                tip = (
                    f"{row.label}: {bar.state}, "
                    f"{scale.offset(bar.start)} to {scale.offset(bar.end)}"
                )
                out.append(
                    f'<rect class="bar" x="{left:.1f}" y="{y + 2}" width="{width:.1f}" '
                    f'height="{ROW_HEIGHT - 4}" fill="{_color(bar.state)}">'
                    f"<title>{escape(tip)}</title></rect>"
                )
                if width >= CHAR_WIDTH * (len(bar.state) + 1):
                    out.append(
                        f'<text class="state" x="{left + 3:.1f}" y="{y + 13}">'
                        f"{escape(bar.state)}</text>"
                    )
            y += ROW_HEIGHT
    return out, y


def _axis_svg(scale: _Scale, height: int) -> list[str]:
    out: list[str] = []
    for second in range(0, int(scale.span) + 1, _tick_step(scale.span)):
        tx = scale.x(scale.t0 + second)
        out.append(
            f'<line class="tick" x1="{tx:.1f}" y1="{AXIS_HEIGHT - 6}" '
            f'x2="{tx:.1f}" y2="{height}"/>'
        )
        out.append(f'<text x="{tx + 2:.1f}" y="{AXIS_HEIGHT - 10}">+{second}s</text>')
    return out


def _fault_svg(
    fault: FaultWindow, scale: _Scale, height: int, kind: str = "fault"
) -> list[str]:
    left = scale.x(fault.start)
    width = max(scale.x(fault.end) - left, 1.0)
    tip = f"{kind}: {fault.label}, {scale.offset(fault.start)} to {scale.offset(fault.end)}"
    # Drawn over the bars (translucent, click-through) so no bar hides it.
    return [
        f'<rect class="{kind}" x="{left:.1f}" y="{AXIS_HEIGHT - 6}" width="{width:.1f}" '
        f'height="{height - AXIS_HEIGHT + 6}"/>',
        f'<text class="{kind}" x="{left + 3:.1f}" y="12">{escape(fault.label)}'
        f"<title>{escape(tip)}</title></text>",
    ]


def render_timeline(
    history: History,
    fault: FaultWindow | None = None,
    *,
    title: str = "",
    waits: Sequence[FaultWindow] = (),
) -> str:
    """The HTML page for `history`, with `fault` and `waits` shaded when given."""
    t0, t1 = history.start, history.end
    for window in [*waits, *([fault] if fault is not None else [])]:
        t0, t1 = min(t0, window.start), max(t1, window.end)
    scale = _Scale(t0, max(t1 - t0, 1.0))
    rows, bottom = _rows_svg(history, scale)
    height = bottom + 8
    shade = _fault_svg(fault, scale, height) if fault is not None else []
    for wait in waits:
        shade += _fault_svg(wait, scale, height, kind="wait")
    started = datetime.datetime.fromtimestamp(t0, tz=datetime.UTC)
    heading = title or f"History {history.path}"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{escape(heading)}</title><style>{CSS}</style></head><body>",
            f"<h1>{escape(heading)}</h1>",
            f'<p class="meta">start {started.isoformat(timespec="seconds")}; '
            f"{scale.span:.1f} s; {len(history.records)} history lines</p>",
            f'<svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{LABEL_WIDTH + PLOT_WIDTH + 40}" height="{height}">',
            *_axis_svg(scale, height),
            *rows,
            *shade,
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
    waits: Sequence[FaultWindow] = (),
) -> Path:
    """Render and write the page; returns the path written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        render_timeline(history, fault, title=title, waits=waits), encoding="utf-8"
    )
    return target
