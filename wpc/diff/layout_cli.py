"""The `layout-diff` verb of `python -m conformance` (and of `wpc layout-diff`).

Only parses arguments and hands over: `reading` checks both files, `layouts`
lines their layout differences up, `layout_rendering` prints the table and
writes the YAML. It always exits 0 (a report, not a gate);
`wpc.suite_cli` maps a bad file to INVALID_INPUT.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.exitcodes import ExitCode
from plumbing import textfiles
from wpc.diff import layout_rendering
from wpc.diff import layouts
from wpc.diff import reading

DESCRIPTION = f"""\
Compare where two implementations' legacy and init-less layouts differ, from
two ConformanceReports (for instance the reference's and upstream's): per
scenario and observation key, the values that differ between layouts in A, in
B or in both, and whether they differ the same way (same value per layout);
then the scenarios whose outcome differs between layouts in A, in B or in both.
A difference seen in one report only says whether the other ran the scenario
in both layouts.

exit codes: 0 (a report, not a gate), {int(ExitCode.INVALID_INPUT)} a file \
that is not a ConformanceReport
"""
"""The verb's --help text, for people (the module docstring is for developers)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `layout-diff` verb's two reports and output file."""
    parser.add_argument("a", type=Path, help="one implementation's ConformanceReport")
    parser.add_argument(
        "b", type=Path, help="another implementation's ConformanceReport"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="also write the layout diff as YAML here",
    )


def main(args: argparse.Namespace) -> int:
    """Line the two reports up, print the table, write the YAML if asked."""
    a = layouts.side(reading.read(args.a), str(args.a))
    b = layouts.side(reading.read(args.b), str(args.b))
    diff = layouts.compare(a, b)
    sys.stdout.write(layout_rendering.table(diff))
    if args.output is not None:
        textfiles.write(args.output, layout_rendering.yaml_text(diff))
        sys.stdout.write(f"layout diff: {args.output}\n")
    return 0
