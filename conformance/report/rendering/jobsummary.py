"""A report as a CI job shows it: a Markdown summary and one annotation per failure.

GitHub Actions renders Markdown appended to `$GITHUB_STEP_SUMMARY` on the run's
page, and turns `::error file=...,title=...::message` lines on a step's output
into annotations beside the run. Both are drawn from the report document alone
(the verdict rows of the HTML page, the result word, each failed item's clauses
and first line of evidence), so a merged report of shards reads the same as an
unsharded one, and any committed report can be summarised offline.

Workflow commands take their values escaped: `%`, CR and LF in the message;
those and `:` and `,` in a property (file, title), which would otherwise end it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.report.items import identity
from conformance.report.rendering import html
from conformance.report.rendering import verdicttable
from conformance.report.runs import words


def _cell(text: str) -> str:
    """A Markdown table cell: a `|` or a line break would end the cell or the row."""
    return " ".join(text.split()).replace("|", "\\|")


def markdown(document: Mapping[str, Any]) -> str:
    """The job summary: the result word, the verdict table and the failures."""
    name = document["implementation"]["name"]
    version = document["implementation"].get("version", "")
    word = words.of_document(document)
    lines = [
        f"## WPC conformance: {name} {version}".rstrip(),
        "",
        f"**{word}**: {words.MEANINGS[word]} ({html.counts(document)}).",
        "",
    ]
    if document.get("interrupted"):
        lines += [verdicttable.interruption(document["interrupted"]), ""]
    columns = [name for name, _ in verdicttable.COLUMNS]
    lines += [
        "| layout | support | " + " | ".join(columns) + " | verdict |",
        "|---|---|" + "---:|" * len(columns) + "---|",
    ]
    for layout, support, counts, verdict in html.verdict_rows(document):
        lines.append(
            f"| {layout} | {support} | "
            + " | ".join(str(n) for n in counts)
            + f" | {verdict} |"
        )
    problems = html.problems(document)
    if problems:
        lines += [
            "",
            "### Failures and harness errors",
            "",
            "| outcome | test | clauses | evidence |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {t['outcome']} | {_cell(identity.of_test(t))} | "
            f"{_cell(', '.join(t['clauses']) or '-')} | "
            f"{_cell(verdicttable.evidence_line(t['message']) or '(no message)')} |"
            for t in problems
        ]
    return "\n".join(lines) + "\n"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def error_commands(document: Mapping[str, Any], *, file: str) -> list[str]:
    """One `::error` workflow command per failed or errored item, on `file`.

    `file` is what the annotation points at: the report the job wrote, the one
    file every failure is in, whatever the repository holds.
    """
    lines = []
    for test in html.problems(document):
        kind = "FAILED" if test["outcome"] == "failed" else "ERROR"
        clauses = ", ".join(test["clauses"]) or "-"
        title = f"{kind} {identity.of_test(test)} ({clauses})"
        message = verdicttable.evidence_line(test["message"]) or "(no message)"
        lines.append(
            f"::error file={_property(file)},title={_property(title)}::{_data(message)}"
        )
    return lines
