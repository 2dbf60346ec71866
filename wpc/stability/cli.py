"""The `stability` verb of `python -m conformance` (and of `wpc stability`).

Only parses arguments and hands over: `reading` reads each report, `comparing`
refuses unlike runs and compares the rest, `rendering` prints the table and
writes the YAML. `--repeat N` of `run` and `chaos run` (`repeating`) ends with
the same comparison of the runs it made.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from conformance.exitcodes import ExitCode
from wpc.stability import comparing
from wpc.stability import reading
from wpc.stability import rendering

DESCRIPTION = f"""\
Compare the reports of runs of one selection item by item: ConformanceReports
(`wpc run`, each run of `wpc run --repeat N`) or ChaosReports (`wpc chaos run`),
an item being a test's identity (HelloWorld[legacy]) or a chaos experiment and
its layout (apiserver-unavailable[initless]). Prints each item whose outcome
differs between runs (a flip) with its durations and what failed, and the items
that failed in every run; --output writes every item's outcomes as a
StabilityReport (schema wpc/stability/stability.schema.json). Refuses reports
of different kinds, code, spec, implementation or profile, selected layouts,
features or timeout scale, another set of items, and interrupted runs.

exit codes: 0 no flip and nothing failed, {int(ExitCode.UNSTABLE)} an item flipped, \
1 an item failed in every run, {int(ExitCode.INVALID_INPUT)} a file that is not a \
report or reports of different runs
"""
"""The verb's --help text."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `stability` verb's reports and options."""
    parser.add_argument(
        "reports",
        nargs="+",
        type=Path,
        help="ConformanceReports or ChaosReports (YAML) of runs of one selection",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=None, help="write the StabilityReport here"
    )


def main(args: argparse.Namespace) -> int:
    """Compare, print, write if asked; the exit code says whether anything flipped."""
    stability = comparing.compare([reading.read(path) for path in args.reports])
    ran = [rendering.Ran(report) for report in stability.reports]
    found = rendering.document(stability, ran)
    if args.output is not None:
        rendering.write(found, args.output)
    sys.stdout.write(rendering.table(stability, ran))
    if args.output is not None:
        sys.stdout.write(f"stability report: {args.output}\n")
    if stability.flips:
        return ExitCode.UNSTABLE
    return pytest.ExitCode.TESTS_FAILED if stability.failing else 0
