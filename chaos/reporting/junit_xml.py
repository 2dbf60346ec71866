"""A ChaosReport as JUnit XML: one test case per experiment and layout.

CI systems read JUnit; the ChaosReport stays the source of truth. A failed or
injection-unverified experiment is a <failure>, an error an <error>, a
not-applicable one <skipped> whose message gives the reason, each with the
evidence as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

FAILURES = frozenset({"failed", "injection-unverified"})
NOT_RUN = frozenset({"not-applicable", "skipped"})
"""Outcomes that are <skipped> (`skipped`: what older runs called not applicable)."""


def _text(entry: Mapping[str, Any]) -> str:
    lines = [f"not applicable: {entry['reason']}"] if entry.get("reason") else []
    lines.append(entry["injectionVerified"]["evidence"])
    lines += [
        f"{c['activity']} ({c['kind']}): {c['message']}"
        for c in entry.get("failedChecks") or []
    ]
    lines += [
        f"{v['invariant']} {v['object']['kind']}/{v['object']['name']}: {v['message']}"
        for v in entry["violations"]
    ]
    return "\n".join(lines)


def render(report: Mapping[str, Any]) -> bytes:
    """The report as a JUnit document."""
    entries = report["experiments"]
    suite = ElementTree.Element(
        "testsuite",
        name=f"chaos-{report['implementation']['name']}",
        tests=str(len(entries)),
        failures=str(sum(1 for e in entries if e["outcome"] in FAILURES)),
        errors=str(sum(1 for e in entries if e["outcome"] == "error")),
        skipped=str(sum(1 for e in entries if e["outcome"] in NOT_RUN)),
        time=f"{sum(e['durationSeconds'] for e in entries):.1f}",
    )
    for entry in entries:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"chaos.{entry['layout']}",
            name=entry["name"],
            time=f"{entry['durationSeconds']:.1f}",
        )
        tag = "error" if entry["outcome"] == "error" else None
        if entry["outcome"] in FAILURES:
            tag = "failure"
        if entry["outcome"] in NOT_RUN:
            tag = "skipped"
        if tag is not None:
            message = entry["outcome"]
            if entry.get("reason"):
                message = f"{message}: {entry['reason']}"
            child = ElementTree.SubElement(case, tag, message=message)
            child.text = _text(entry)
    document: bytes = ElementTree.tostring(
        suite, encoding="utf-8", xml_declaration=True
    )
    return document


def write(path: Path, report: Mapping[str, Any]) -> Path:
    """Write the JUnit document of `report` to `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render(report))
    return path
