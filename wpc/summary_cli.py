"""`summary`: a report as a CI job shows it (`conformance.report.rendering.jobsummary`).

summary REPORT [--markdown]   the verdict table and failures as Markdown, for
                              `>> "$GITHUB_STEP_SUMMARY"`
summary REPORT --annotations  one `::error file=REPORT,title=...::` workflow
                              command per failed item, for the step's output
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.report.rendering import html
from conformance.report.rendering import jobsummary

DESCRIPTION = (
    "Print a ConformanceReport (a run's, or the merge of its shards) as a CI job "
    "shows it: Markdown for the job summary (GitHub Actions: append it to "
    '"$GITHUB_STEP_SUMMARY"), or with --annotations one ::error workflow command '
    "per failed or errored item. Exit 0 whatever the verdict; 10 for a file that is "
    "not a ConformanceReport."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `summary` verb's arguments."""
    parser.add_argument("report", type=Path, help="ConformanceReport YAML")
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--markdown",
        action="store_true",
        help="the verdict table and failures as Markdown (the default)",
    )
    form.add_argument(
        "--annotations",
        action="store_true",
        help="one `::error file=...,title=...::evidence` line per failed item",
    )
    parser.add_argument(
        "--file",
        default=None,
        help="the file annotations point at (default: REPORT as given)",
    )


def main(args: argparse.Namespace) -> int:
    """Print the summary or the annotations of the report."""
    document = html.read(args.report)
    if args.annotations:
        file = args.file if args.file is not None else str(args.report)
        lines = jobsummary.error_commands(document, file=file)
        sys.stdout.write("".join(f"{line}\n" for line in lines))
    else:
        sys.stdout.write(jobsummary.markdown(document))
    return 0
