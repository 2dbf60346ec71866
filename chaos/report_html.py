"""The ChaosReport as one HTML page that links every experiment's timeline.

`reports/chaos-<impl>.yaml` is the machine-readable verdict; this page is the
one a person opens first: a row per experiment and layout with its outcome, the
evidence that the fault landed, its duration and violations, and links to the
timeline and the recorded history (relative, so the reports folder can be
moved or attached to a CI run as a whole). One file, no script or external
asset, like the timelines it links.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

CSS = """
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 17px; margin: 0 0 4px; }
p.meta { margin: 0 0 12px; color: #555; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.passed { color: #1e7e34; font-weight: 600; }
td.failed, td.error, td.injection-unverified { color: #b42318; font-weight: 600; }
td.skipped, td.not-applicable { color: #777; }
td.evidence { max-width: 520px; font-size: 12px; color: #444; }
"""


def _link(target: str, page: Path, text: str) -> str:
    """A link from `page` to `target` (relative when both are on one file system tree)."""
    if not target:
        return ""
    if not Path(target).exists():
        return escape(f"{text} (missing)")
    relative = os.path.relpath(Path(target).resolve(), page.resolve().parent)
    return f'<a href="{escape(relative)}">{escape(text)}</a>'


def _evidence(entry: Mapping[str, Any]) -> str:
    """The injection evidence; first, for an experiment that does not apply, why."""
    evidence = str(entry["injectionVerified"]["evidence"])
    if entry.get("reason"):
        return f"not applicable: {entry['reason']}\n{evidence}"
    return evidence


def _row(entry: Mapping[str, Any], page: Path) -> str:
    outcome = escape(str(entry["outcome"]))
    injection = entry["injectionVerified"]
    links = (
        _link(str(entry.get("timelinePath") or ""), page, "timeline")
        + " "
        + _link(str(entry.get("historyPath") or ""), page, "history")
    )
    cells = [
        ("", escape(str(entry["name"]))),
        ("", escape(str(entry["layout"]))),
        (outcome, outcome),
        ("", "yes" if injection["verified"] else "no"),
        ("", f"{float(entry['durationSeconds']):.1f} s"),
        ("", str(len(entry.get("violations") or []))),
        ("", links),
        ("evidence", escape(_evidence(entry))),
    ]
    return (
        "<tr>"
        + "".join(
            f'<td class="{css}">{html}</td>' if css else f"<td>{html}</td>"
            for css, html in cells
        )
        + "</tr>"
    )


def render_index(report: Mapping[str, Any], page: Path) -> str:
    """The HTML page of `report`, to be written at `page` (links are relative to it)."""
    implementation = report.get("implementation") or {}
    summary = report.get("summary") or {}
    entries = sorted(
        report.get("experiments") or [], key=lambda e: (e["name"], e["layout"])
    )
    title = f"Chaos report: {implementation.get('name', '?')}"
    counts = ", ".join(f"{k} {v}" for k, v in summary.items())
    header = "".join(
        f"<th>{h}</th>"
        for h in (
            "experiment",
            "layout",
            "outcome",
            "injection verified",
            "duration",
            "violations",
            "links",
            "injection evidence (or why it does not apply)",
        )
    )
    rows = "\n".join(_row(e, page) for e in entries)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
        f'<h1>{escape(title)}</h1>\n<p class="meta">{escape(counts)}</p>\n'
        f"<table><thead><tr>{header}</tr></thead><tbody>\n{rows}\n</tbody></table>\n"
        "</body></html>\n"
    )


def write_index(report: Mapping[str, Any], page: Path) -> Path:
    """Write the page for `report` at `page`; returns it."""
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_index(report, page), encoding="utf-8")
    return page
