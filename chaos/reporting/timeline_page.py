"""Render a history as one self-contained HTML page (inline CSS and SVG, a template).

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
from pathlib import Path

from chaos.history.records import History
from chaos.reporting.timeline_rows import Row
from chaos.reporting.timeline_rows import node_rows
from chaos.reporting.timeline_rows import pod_rows
from plumbing import pages

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
TEMPLATE = "timeline.html.j2"
_ENVIRONMENT = pages.environment("chaos.reporting")


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


@dataclass(frozen=True)
class _Bar:
    """One state span drawn as a rectangle, with its hover text."""

    x: str
    y: int
    width: str
    fill: str
    tip: str
    state: str
    state_x: str
    show_state: bool
    """Whether the bar is wide enough to print its state inside."""


@dataclass(frozen=True)
class _Label:
    text: str
    x: int
    y: int
    group: bool


@dataclass(frozen=True)
class _Tick:
    x: str
    label_x: str
    second: int


@dataclass(frozen=True)
class _Shade:
    """A fault or wait window across every row, with its label on top."""

    kind: str
    x: str
    width: str
    height: int
    label_x: str
    label: str
    tip: str


def _rows(history: History, scale: _Scale) -> tuple[list[_Label], list[_Bar], int]:
    """The row labels, the bars, and the y just below the last row."""
    labels: list[_Label] = []
    bars: list[_Bar] = []
    y = AXIS_HEIGHT
    for group, rows in _groups(history):
        labels.append(_Label(group, 4, y + 13, group=True))
        y += ROW_HEIGHT
        for row in rows:
            indent = 20 if row.group == "container" else 8
            labels.append(_Label(row.label, indent, y + 13, group=False))
            for span in row.spans:
                left = scale.x(span.start)
                width = max(scale.x(span.end) - left, 1.0)
                tip = (
                    f"{row.label}: {span.state}, "
                    f"{scale.offset(span.start)} to {scale.offset(span.end)}"
                )
                bars.append(
                    _Bar(
                        x=f"{left:.1f}",
                        y=y,
                        width=f"{width:.1f}",
                        fill=_color(span.state),
                        tip=tip,
                        state=span.state,
                        state_x=f"{left + 3:.1f}",
                        show_state=width >= CHAR_WIDTH * (len(span.state) + 1),
                    )
                )
            y += ROW_HEIGHT
    return labels, bars, y


def _ticks(scale: _Scale) -> list[_Tick]:
    return [
        _Tick(
            x=f"{scale.x(scale.t0 + second):.1f}",
            label_x=f"{scale.x(scale.t0 + second) + 2:.1f}",
            second=second,
        )
        for second in range(0, int(scale.span) + 1, _tick_step(scale.span))
    ]


def _shade(
    window: FaultWindow, scale: _Scale, height: int, kind: str = "fault"
) -> _Shade:
    left = scale.x(window.start)
    width = max(scale.x(window.end) - left, 1.0)
    return _Shade(
        kind=kind,
        x=f"{left:.1f}",
        width=f"{width:.1f}",
        height=height - AXIS_HEIGHT + 6,
        label_x=f"{left + 3:.1f}",
        label=window.label,
        tip=f"{kind}: {window.label}, "
        f"{scale.offset(window.start)} to {scale.offset(window.end)}",
    )


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
    labels, bars, bottom = _rows(history, scale)
    height = bottom + 8
    # Drawn over the bars (translucent, click-through) so no bar hides them.
    shades = [_shade(fault, scale, height)] if fault is not None else []
    shades += [_shade(wait, scale, height, kind="wait") for wait in waits]
    started = datetime.datetime.fromtimestamp(t0, tz=datetime.UTC)
    return pages.render(
        _ENVIRONMENT,
        TEMPLATE,
        {
            "title": title or f"History {history.path}",
            "verdict": "",
            "verdict_meaning": "",
            "started": started.isoformat(timespec="seconds"),
            "span": f"{scale.span:.1f}",
            "lines": len(history.records),
            "width": LABEL_WIDTH + PLOT_WIDTH + 40,
            "height": height,
            "axis_y": AXIS_HEIGHT,
            "row_height": ROW_HEIGHT,
            "ticks": _ticks(scale),
            "labels": labels,
            "bars": bars,
            "shades": shades,
        },
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
