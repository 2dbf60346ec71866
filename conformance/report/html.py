"""The ConformanceReport as one self-contained HTML page (#12).

The YAML report is the record; this page is for people: the verdict per layout
(Core and Extended), the failures with their clauses and one line of evidence,
the layout diff, the coverage ledger, and per test its message and the evidence
and log files the run kept. It is rendered from the report document alone, so
`python -m conformance html REPORT.yaml` redraws any committed report offline.
One file, inline CSS, no scripts and nothing fetched from the network: it opens
the same from a CI artifact, a mail attachment or a laptop without network.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance.errors import DataError
from conformance.report import documents
from conformance.report import identity
from conformance.report import reruns
from conformance.report import schemafiles
from conformance.report import scores
from conformance.report import verdicts
from conformance.report import words
from conformance.report.markup import Child
from conformance.report.markup import Markup
from conformance.report.markup import element
from conformance.report.markup import join
from conformance.report.markup import page
from conformance.report.markup import table
from conformance.report.outcomes import Outcome

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em;
       padding: 0 1em; color: #1b1f24; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left;
         vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; }
code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; }
.PASS, .passed, .success { color: #1a7f37; font-weight: 600; }
.FAIL, .failed, .failure { color: #cf222e; font-weight: 600; }
.ERROR, .error, .INCOMPLETE { color: #9a6700; font-weight: 600; }
.skipped, .partial { color: #57606a; }
.INTERRUPTED, .interrupted { color: #9a6700; font-weight: 600; }
details { margin: .2em 0; } summary { cursor: pointer; }
dl { display: grid; grid-template-columns: max-content auto; gap: .1em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
"""

SUPPORTS = ("Core", "Extended")


def _scenarios(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [t for t in document["tests"] if t["kind"] == "scenario"]


def verdict_rows(document: Mapping[str, Any]) -> list[tuple[str, str, list[int], str]]:
    """(layout, support, counts in `verdicts.COLUMNS` order, verdict) per row."""
    scenarios = _scenarios(document)
    rows = []
    for layout in sorted({t["layout"] for t in scenarios}):
        for support in SUPPORTS:
            counts = {outcome: 0 for _, outcome in verdicts.COLUMNS}
            for test in scenarios:
                if test["layout"] == layout and test["support"] == support:
                    counts[Outcome(test["outcome"])] += 1
            rows.append(
                (
                    layout,
                    support,
                    [counts[o] for _, o in verdicts.COLUMNS],
                    verdicts.verdict(
                        counts, interrupted=document.get("interrupted") is not None
                    ),
                )
            )
    return rows


def _num(value: int) -> Markup:
    return element("td", str(value), class_="num")


def _verdict_section(document: Mapping[str, Any]) -> Markup:
    headers = ["layout", "support", *(name for name, _ in verdicts.COLUMNS), "verdict"]
    head = element("tr", *(element("th", h) for h in headers))
    body = [
        element(
            "tr",
            element("td", layout),
            element("td", support),
            *(_num(n) for n in counts),
            element("td", element("span", verdict, class_=verdict)),
        )
        for layout, support, counts, verdict in verdict_rows(document)
    ]
    summary = document["summary"]
    interrupted = document.get("interrupted")
    verdict = words.of_document(document)
    return join(
        [
            element("h2", "Verdict per layout", id="verdict"),
            *(
                [
                    element(
                        "p",
                        element(
                            "span",
                            verdicts.interruption(interrupted),
                            class_="interrupted",
                        ),
                    )
                ]
                if interrupted
                else []
            ),
            element(
                "p",
                "Result: ",
                element("span", verdict, class_=verdict),
                f" ({words.MEANINGS[verdict]}; {summary['passed']} passed, {summary['failed']} failed, "
                f"{summary['skipped']} not claimed, {summary['errors']} harness "
                f"errors, {summary['divergenceFailures']} undeclared layout "
                "divergences).",
            ),
            element("table", element("thead", head), element("tbody", *body)),
        ]
    )


def _anchor(test: Mapping[str, Any]) -> str:
    return "test-" + identity.of_test(test).replace(" ", "_")


def _failures_section(document: Mapping[str, Any]) -> Markup:
    problems = sorted(
        (t for t in document["tests"] if t["outcome"] in ("failed", "error")),
        key=lambda t: (t["layout"], t["shortName"], identity.of_test(t)),
    )
    rows: list[list[Child]] = [
        [
            element("span", t["outcome"], class_=t["outcome"]),
            element("a", t["shortName"], href="#" + _anchor(t)),
            t["layout"],
            t["support"],
            ", ".join(t["clauses"]) or "-",
            element("code", verdicts.evidence_line(t["message"]) or "(no message)"),
        ]
        for t in problems
    ]
    body: Child = (
        table(["outcome", "test", "layout", "support", "clauses", "evidence"], rows)
        if rows
        else element("p", "None.")
    )
    return join([element("h2", "Failures and harness errors", id="failures"), body])


def _values(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{layout}: {value}" for layout, value in values.items())


def _divergences_section(document: Mapping[str, Any]) -> Markup:
    found = document["layoutDivergences"]
    parts: list[Child] = [
        element("h2", "Layout diff", id="divergences"),
        element(
            "p",
            f"{found['compared']} scenarios compared across layouts; "
            f"{len(found['undeclared'])} with undeclared differences, "
            f"{len(found['declared'])} declared differences.",
        ),
    ]
    undeclared = [
        [d["shortName"], x["key"], _values(x["values"])]
        for d in found["undeclared"]
        for x in d["differences"]
    ]
    if undeclared:
        parts += [
            element("h3", "Undeclared (each fails the run)"),
            table(["test", "key", "values"], undeclared),
        ]
    declared = [
        [d["shortName"], d["key"], _values(d["values"]), str(d.get("divergence"))]
        for d in found["declared"]
    ]
    if declared:
        parts += [
            element("h3", "Declared (conformance/divergences.yaml)"),
            table(["test", "key", "values", "divergence"], declared),
        ]
    return join(parts)


def _gaps(title: str, gaps: Sequence[Mapping[str, Any]]) -> list[Child]:
    if not gaps:
        return []
    rows = [
        [g["id"], g["level"], ", ".join(g["missingLayouts"]), g["summary"]]
        for g in gaps
    ]
    return [
        element("h3", f"{title} ({len(gaps)})"),
        table(["clause", "level", "missing layouts", "summary"], rows),
    ]


def _coverage_section(document: Mapping[str, Any]) -> Markup:
    coverage = document["coverage"]
    must = coverage["uncoveredMust"]
    covered = [[c["id"], ", ".join(c["tests"])] for c in coverage["covered"]]
    return join(
        [
            element("h2", "Coverage ledger", id="coverage"),
            element(
                "p",
                f"{len(covered)} clauses covered, {len(coverage['uncovered'])} "
                f"uncovered ({len(must)} MUST), "
                f"{len(coverage['partiallyCovered'])} partially covered.",
            ),
            *_gaps("Uncovered", coverage["uncovered"]),
            *_gaps("Partially covered", coverage["partiallyCovered"]),
            element(
                "details",
                element("summary", f"Covered clauses ({len(covered)})"),
                table(["clause", "tests"], covered),
            ),
        ]
    )


def _test_details(test: Mapping[str, Any]) -> Markup:
    facts: list[tuple[str, Child]] = [
        ("ID", element("code", identity.of_test(test))),
        ("node ID", element("code", test["nodeid"])),
        ("clauses", ", ".join(test["clauses"]) or "-"),
        ("features", ", ".join(test["features"]) or "-"),
        ("support", test["support"]),
        (
            "attempts",
            f"{test['attempts']} (first outcome {test['firstOutcome']})",
        ),
        ("duration", f"{test['durationSeconds']} s"),
    ]
    body: list[Child] = [
        element("dl", *(join([element("dt", k), element("dd", v)]) for k, v in facts))
    ]
    if test["evidence"]:
        body += [
            element("p", "Evidence and logs kept by the run:"),
            element(
                "ul", *(element("li", element("code", p)) for p in test["evidence"])
            ),
        ]
    if test["message"]:
        body.append(element("pre", test["message"]))
    return element(
        "details",
        element(
            "summary",
            element("span", test["outcome"], class_=test["outcome"]),
            f" [{test['layout']}] {identity.of_test(test)}",
        ),
        *body,
        id=_anchor(test),
    )


def _tests_section(document: Mapping[str, Any]) -> Markup:
    order = {"failed": 0, "error": 1, "skipped": 2, "passed": 3}
    tests = sorted(
        document["tests"],
        key=lambda t: (order.get(t["outcome"], 4), identity.of_test(t)),
    )
    return join(
        [
            element("h2", f"Tests ({len(tests)})", id="tests"),
            *(_test_details(t) for t in tests),
        ]
    )


def _claimed_layouts(implementation: Mapping[str, Any]) -> str:
    """The claimed layouts, then each one the build cannot run and why (not claimed)."""
    unsupported = implementation.get("unsupportedLayouts") or {}
    return "; ".join(
        [
            ", ".join(implementation["claimedLayouts"]),
            *(f"not {layout}: {why}" for layout, why in unsupported.items()),
        ]
    )


def _interrupted(block: Mapping[str, Any]) -> Markup:
    """Why the run stopped early, the tests that ran and those cut short."""
    lists = [("ran", block["ran"]), ("cut short, not counted", block["unfinished"])]
    return join(
        [
            element("div", f"by {block['reason']}"),
            *(
                element(
                    "details",
                    element("summary", f"{label}: {len(ids)}"),
                    *(element("div", element("code", i)) for i in ids),
                )
                for label, ids in lists
            ),
        ]
    )


def _run_section(document: Mapping[str, Any]) -> Markup:
    implementation = document["implementation"]
    environment = document["environment"]
    run = document["run"]
    facts: list[tuple[str, Child]] = [
        ("implementation", f"{implementation['name']} {implementation['version']}"),
        ("profile", element("code", implementation["profile"])),
        ("claimed layouts", _claimed_layouts(implementation)),
        ("claimed features", ", ".join(implementation["claimedFeatures"])),
        (
            "images",
            join(
                element(
                    "div", element("code", f"{i['role']}: {i['ref']}@{i['digest']}")
                )
                for i in implementation["images"]
            ),
        ),
        (
            "cluster",
            f"{environment['provider']}, Kubernetes {environment['kubernetesVersion']}, "
            + ", ".join(environment["containerRuntimeVersions"]),
        ),
        (
            "suite",
            f"{document['suite']['version']} ({document['suite']['commit']}), "
            f"spec {document['suite']['specVersion']}",
        ),
        ("session", f"{run['sessionId']}: {run['startedAt']} to {run['finishedAt']}"),
        ("layouts selected", ", ".join(run["selectedLayouts"])),
        ("workers", str(run["workers"])),
        ("reproduce", element("code", run["reproduce"])),
        ("leaks", ", ".join(document["leaks"]) or "none"),
    ]
    interrupted = document.get("interrupted")
    if interrupted:
        facts.append(("interrupted", _interrupted(interrupted)))
    retried = document["attempts"]["retried"]
    facts.append(("needed a rerun", ", ".join(map(reruns.label, retried)) or "none"))
    facts.append(
        (
            "the suite's scores",
            join(element("div", line) for line in scores.of_document(document)),
        )
    )
    return element(
        "dl", *(join([element("dt", k), element("dd", v)]) for k, v in facts)
    )


def render(document: Mapping[str, Any]) -> str:
    """The whole page for one ConformanceReport document."""
    implementation = document["implementation"]
    # Titled by the result word over the claimed items: unclaimed features
    # never make a pass look partial.
    title = (
        f"WPC conformance: {implementation['name']} {implementation['version']}"
        f" ({words.of_document(document)})"
    )
    return page(
        title,
        STYLE,
        element("h1", title),
        _run_section(document),
        _verdict_section(document),
        _failures_section(document),
        _divergences_section(document),
        _coverage_section(document),
        _tests_section(document),
    )


def path_beside(report: Path) -> Path:
    """Where a run's HTML goes: beside its YAML report, same name, `.html`."""
    return report.with_suffix(".html")


def write(document: Mapping[str, Any], path: Path) -> None:
    """Write the page (the document is validated by whoever wrote its YAML)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(document), encoding="utf-8")


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
