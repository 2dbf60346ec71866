"""The ConformanceReport as one self-contained HTML page (#12, #26).

The YAML report is the record; this page is for people: the result word in a
banner at the top, who made the implementation, the verdict per layout (Core
and Extended), a grid of tests by layout, the failures with their clauses and
one line of evidence, the layout diff, the coverage ledger, and per test its
message and links to the evidence and log files the run kept. It is rendered
from the report document alone, so `python -m conformance html REPORT.yaml`
redraws any committed report offline.

This module turns the document into plain values (`context`); the template
`conformance/report/rendering/templates/report.html.j2` lays them out on the project's
one page style (`plumbing.pages`), escaping everything. A new section is a new
block in the template and, if it needs one, a new value here.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance import contract
from conformance.errors import DataError
from conformance.report.items import identity
from conformance.report.items import reruns
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import scenario_of
from conformance.report.rendering import verdicttable
from conformance.report.runs import documents
from conformance.report.runs import words
from conformance.report.scores import schemafiles
from conformance.report.scores import summary
from plumbing import pages

SUPPORTS = ("Core", "Extended")
LAYOUTS = contract.LAYOUTS
"""The grid's columns, in the spec's order."""
TEMPLATE = "report.html.j2"
_ENVIRONMENT = pages.environment("conformance.report.rendering")


def _scenarios(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [t for t in document["tests"] if t["kind"] == "scenario"]


def verdict_rows(document: Mapping[str, Any]) -> list[tuple[str, str, list[int], str]]:
    """(layout, support, counts in `verdicttable.COLUMNS` order, verdict) per row."""
    scenarios = _scenarios(document)
    rows = []
    for layout in sorted({t["layout"] for t in scenarios}):
        for support in SUPPORTS:
            counts = {outcome: 0 for _, outcome in verdicttable.COLUMNS}
            for test in scenarios:
                if test["layout"] == layout and test["support"] == support:
                    counts[Outcome(test["outcome"])] += 1
            rows.append(
                (
                    layout,
                    support,
                    [counts[o] for _, o in verdicttable.COLUMNS],
                    verdicttable.verdict(
                        counts, interrupted=document.get("interrupted") is not None
                    ),
                )
            )
    return rows


def anchor(test: Mapping[str, Any]) -> str:
    """The id of a test's details on the page."""
    return "test-" + identity.of_test(test).replace(" ", "_")


def grid(
    document: Mapping[str, Any],
) -> list[tuple[str, list[Mapping[str, Any] | None]]]:
    """Rows of tests by layout: (row name, the test per `LAYOUTS` or None), by name.

    A row is the scenario (`scenario_of`: the identity without the layout), the
    name every report comparison matches layouts by.
    """
    cells: dict[str, dict[str, Mapping[str, Any]]] = {}
    for test in _scenarios(document):
        row = scenario_of(identity.of_test(test), test["layout"])
        cells.setdefault(row, {})[test["layout"]] = test
    return [
        (name, [cells[name].get(layout) for layout in LAYOUTS])
        for name in sorted(cells)
    ]


def cell(test: Mapping[str, Any]) -> str:
    """A grid cell's word: the outcome, or "not claimed" for a skip the claims made."""
    if test["outcome"] == Outcome.SKIPPED.value and not words.is_claimed(test):
        return "not claimed"
    return str(test["outcome"])


def problems(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The failed and errored items, by layout and name."""
    return sorted(
        (t for t in document["tests"] if t["outcome"] in ("failed", "error")),
        key=lambda t: (t["layout"], t["shortName"], identity.of_test(t)),
    )


def _values(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{layout}: {value}" for layout, value in values.items())


def divergence_rows(document: Mapping[str, Any]) -> dict[str, list[list[str]]]:
    """The layout diff's undeclared and declared differences as table rows."""
    found = document["layoutDivergences"]
    return {
        "undeclared": [
            [d["shortName"], x["key"], _values(x["values"])]
            for d in found["undeclared"]
            for x in d["differences"]
        ],
        "declared": [
            [d["shortName"], d["key"], _values(d["values"]), str(d.get("divergence"))]
            for d in found["declared"]
        ],
    }


def _gap_rows(gaps: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    return [
        [g["id"], g["level"], ", ".join(g["missingLayouts"]), g["summary"]]
        for g in gaps
    ]


def coverage(document: Mapping[str, Any]) -> dict[str, Any]:
    """The coverage ledger's counts and tables."""
    found = document["coverage"]
    return {
        "covered": [[c["id"], ", ".join(c["tests"])] for c in found["covered"]],
        "uncovered": _gap_rows(found["uncovered"]),
        "partially": _gap_rows(found["partiallyCovered"]),
        "must": len(found["uncoveredMust"]),
    }


def claimed_layouts(implementation: Mapping[str, Any]) -> str:
    """The claimed layouts, then each one the build cannot run and why (not claimed)."""
    unsupported = implementation.get("unsupportedLayouts") or {}
    return "; ".join(
        [
            ", ".join(implementation["claimedLayouts"]),
            *(f"not {layout}: {why}" for layout, why in unsupported.items()),
        ]
    )


def run_facts(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The run's plain facts, as (name, text) in the order shown."""
    environment = document["environment"]
    run = document["run"]
    used = document.get("cluster") or {}
    facts = [
        (
            "cluster",
            f"{environment['provider']}, Kubernetes {environment['kubernetesVersion']}, "
            + ", ".join(environment["containerRuntimeVersions"])
            + (
                f"; context {used['context']} at {used['server']}"
                if used.get("context")
                else ""
            ),
        ),
        (
            "suite",
            f"{document['suite']['version']} ({document['suite']['commit']}), "
            f"spec {document['suite']['specVersion']}",
        ),
        ("session", f"{run['sessionId']}: {run['startedAt']} to {run['finishedAt']}"),
        ("layouts selected", ", ".join(run["selectedLayouts"])),
        ("workers", str(run["workers"])),
        ("leaks", ", ".join(document["leaks"]) or "none"),
        (
            "needed a rerun",
            ", ".join(map(reruns.label, document["attempts"]["retried"])) or "none",
        ),
    ]
    return facts


def counts(document: Mapping[str, Any]) -> str:
    """The counts the result word is made of, as the banner and a job summary say them."""
    summary = document["summary"]
    return (
        f"{summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['skipped']} not claimed, {summary['errors']} harness errors, "
        f"{summary['divergenceFailures']} undeclared layout divergences"
    )


def result_line(document: Mapping[str, Any]) -> str:
    """The banner's sentence: what the word means, and the counts it is made of."""
    return f"{words.MEANINGS[words.of_document(document)]}: {counts(document)}."


def title(document: Mapping[str, Any]) -> str:
    """The page's title, with the result word over the claimed items.

    Unclaimed features never make a pass look partial.
    """
    implementation = document["implementation"]
    return (
        f"WPC conformance: {implementation['name']} {implementation['version']}"
        f" ({words.of_document(document)})"
    )


def context(document: Mapping[str, Any], page: Path | None = None) -> dict[str, Any]:
    """Everything the template shows, from the document; links relative to `page`."""
    order = {"failed": 0, "error": 1, "skipped": 2, "passed": 3}
    interrupted = document.get("interrupted")
    return {
        "title": title(document),
        "verdict": words.of_document(document),
        "verdict_meaning": result_line(document),
        "interruption": verdicttable.interruption(interrupted) if interrupted else "",
        "interrupted": interrupted,
        "document": document,
        "implementation": document["implementation"],
        "claimed_layouts": claimed_layouts(document["implementation"]),
        "run_facts": run_facts(document),
        "columns": [name for name, _ in verdicttable.COLUMNS],
        "verdict_rows": verdict_rows(document),
        "scores": summary.of_document(document),
        "layouts": LAYOUTS,
        "grid": grid(document),
        "problems": problems(document),
        "divergences": divergence_rows(document),
        "coverage": coverage(document),
        "tests": sorted(
            document["tests"],
            key=lambda t: (order.get(t["outcome"], 4), identity.of_test(t)),
        ),
        "identity": identity.of_test,
        "anchor": anchor,
        "cell": cell,
        "evidence_line": verdicttable.evidence_line,
        "href": lambda target: pages.href(str(target), page),
    }


def render(document: Mapping[str, Any], page: Path | None = None) -> str:
    """The whole page for one ConformanceReport document, to be written at `page`."""
    return pages.render(_ENVIRONMENT, TEMPLATE, context(document, page))


def path_beside(report: Path) -> Path:
    """Where a run's HTML goes: beside its YAML report, same name, `.html`."""
    return report.with_suffix(".html")


def write(document: Mapping[str, Any], path: Path) -> None:
    """Write the page (the document is validated by whoever wrote its YAML)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(document, path), encoding="utf-8")


def read(path: Path) -> dict[str, Any]:
    """A ConformanceReport YAML, schema-checked; DataError naming the file."""
    text = schemafiles.read_text(path, documents.KIND)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: cannot read a ConformanceReport: {exc}") from exc
    if not isinstance(document, dict) or document.get("kind") != documents.KIND:
        raise DataError(f"{path}: kind: not a {documents.KIND}")
    try:
        documents.validate(document)
    except jsonschema.ValidationError as exc:
        key = "/".join(str(p) for p in exc.absolute_path) or "(document)"
        raise DataError(f"{path}: {key}: {exc.message}") from exc
    return identity.upgrade(document)
