"""The ChaosReport as one HTML page that links every experiment's timeline.

`reports/chaos-<impl>.yaml` is the machine-readable verdict; this page is the
one a person opens first: the result word in a banner, then a row per
experiment and layout with its outcome, the evidence that the fault landed, its
duration and violations, and links to the timeline and the recorded history
(relative, so the reports folder can be moved or attached to a CI run as a
whole). It is the template `chaos/reporting/templates/chaos.html.j2` on the project's one
page style (`plumbing.pages`): escaped, one file, no script or external asset.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chaos.reporting import junit_xml
from plumbing import pages

TEMPLATE = "chaos.html.j2"
_ENVIRONMENT = pages.environment("chaos.reporting")

MEANINGS = {
    "PASS": "every experiment that applies passed, its fault shown to have landed",
    "FAIL": "an experiment failed or its fault was not shown to have landed",
    "INCOMPLETE": "nothing failed, but an experiment errored or none passed",
}


def verdict(experiments: list[Mapping[str, Any]]) -> str:
    """PASS, FAIL or INCOMPLETE over the experiments (not applicable ones aside)."""
    outcomes = {str(e["outcome"]) for e in experiments}
    # The outcomes that fail the run are the JUnit XML's failures: the fault
    # broke an invariant, or it was never shown to have landed.
    if outcomes & junit_xml.FAILURES:
        return "FAIL"
    if "error" in outcomes or "passed" not in outcomes:
        return "INCOMPLETE"
    return "PASS"


def _link(target: str, page: Path) -> tuple[str, bool]:
    """(href, whether the file is there) of a file the page links to."""
    return pages.href(target, page), Path(target).exists()


def _evidence(entry: Mapping[str, Any]) -> str:
    """The injection evidence; first, for an experiment that does not apply, why."""
    evidence = str(entry["injectionVerified"]["evidence"])
    if entry.get("reason"):
        return f"not applicable: {entry['reason']}\n{evidence}"
    return evidence


def _row(entry: Mapping[str, Any], page: Path) -> dict[str, Any]:
    links = [
        (label, *_link(str(entry.get(key) or ""), page))
        for label, key in (("timeline", "timelinePath"), ("history", "historyPath"))
        if entry.get(key)
    ]
    return {
        "name": str(entry["name"]),
        "layout": str(entry["layout"]),
        "outcome": str(entry["outcome"]),
        "verified": "yes" if entry["injectionVerified"]["verified"] else "no",
        "duration": f"{float(entry['durationSeconds']):.1f} s",
        "violations": len(entry.get("violations") or []),
        "links": links,
        "evidence": _evidence(entry),
    }


def render_index(report: Mapping[str, Any], page: Path) -> str:
    """The HTML page of `report`, to be written at `page` (links are relative to it)."""
    implementation = report.get("implementation") or {}
    summary = report.get("summary") or {}
    entries = sorted(
        report.get("experiments") or [], key=lambda e: (e["name"], e["layout"])
    )
    word = verdict(entries)
    return pages.render(
        _ENVIRONMENT,
        TEMPLATE,
        {
            "title": f"Chaos report: {implementation.get('name', '?')}",
            "verdict": word,
            "verdict_meaning": MEANINGS[word],
            "counts": ", ".join(f"{k} {v}" for k, v in summary.items()),
            "rows": [_row(e, page) for e in entries],
        },
    )


def write_index(report: Mapping[str, Any], page: Path) -> Path:
    """Write the page for `report` at `page`; returns it."""
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_index(report, page), encoding="utf-8")
    return page
