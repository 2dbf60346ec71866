"""JUnit XML from the suite's own records, so "error" stays distinct from "failed".

pytest's `--junitxml` files a harness failure in the test body as a <failure>;
CI dashboards then blame the implementation for a broken cluster. This writer
uses the plugin's outcome mapping: <failure> for failed, <error> for error,
<skipped> for not claimed; clause IDs, layout and features go in properties.
A test case's class is its ShortName and its name the rest of its identity
(`conformance.report.items.identity`): `HelloWorld` / `HelloWorld[legacy]`, or
`StatusShutdownDags` / `test_stop_runs_every_task_of_a_dag_exit_handler[initless]`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord


def _summary(text: str) -> str:
    """The failure's one-line summary.

    pytest's first `E` line (the exception and its message, e.g. a WaitTimeout's
    last observed state), else the text's last line.
    """
    lines = text.strip().splitlines()
    raised = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (raised[0] if raised else lines[-1] if lines else "")[:300]


def document(
    records: list[TestRecord], *, suite_name: str
) -> ET.ElementTree[ET.Element]:
    """Build the JUnit tree: one <testsuite>, one <testcase> per record."""
    counts = {o: sum(1 for r in records if r.outcome is o) for o in Outcome}
    suite = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(records)),
        failures=str(counts[Outcome.FAILED]),
        errors=str(counts[Outcome.ERROR]),
        skipped=str(counts[Outcome.SKIPPED]),
        time=f"{sum(r.duration for r in records):.3f}",
    )
    for record in records:
        # Named by the stable identity, never the node ID: a dashboard keeps one
        # history per test whether the suite ran from a checkout or an install.
        case = ET.SubElement(
            suite,
            "testcase",
            classname=record.short_name,
            name=record.test_id.removeprefix(f"{record.short_name}::"),
            time=f"{record.duration:.3f}",
        )
        props = ET.SubElement(case, "properties")
        for key, value in (
            ("id", record.test_id),
            ("shortName", record.short_name),
            ("layout", record.layout),
            ("clauses", ",".join(record.clauses)),
            ("features", ",".join(record.features)),
            ("support", record.support),
            ("attempts", str(record.attempts)),
            ("firstOutcome", record.first_outcome.value),
        ):
            ET.SubElement(props, "property", name=key, value=value)
        tag = {
            Outcome.FAILED: "failure",
            Outcome.ERROR: "error",
            Outcome.SKIPPED: "skipped",
        }
        if record.outcome in tag:
            element = ET.SubElement(
                case, tag[record.outcome], message=_summary(record.message)
            )
            element.text = record.message
    return ET.ElementTree(suite)


def write(records: list[TestRecord], path: Path, *, suite_name: str) -> None:
    """Write the JUnit XML file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document(records, suite_name=suite_name).write(
        path, encoding="utf-8", xml_declaration=True
    )
