"""The `diff` verb of `python -m conformance` (and of `wpc diff`).

Only parses arguments and hands over: `reading` checks both files,
`comparing` diffs them, `explaining` applies an explanations file when one is
given (`--explained FILE`; none by default), `rendering` prints the table and
writes the YAML. The exit code is `ExitCode.REGRESSION` when anything passed
before and fails now without an explanation, 0 otherwise;
`wpc.suite_cli` maps a bad file to INVALID_INPUT.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from conformance.exitcodes import ExitCode
from plumbing import textfiles
from wpc.diff import comparing
from wpc.diff import explaining
from wpc.diff import reading
from wpc.diff import rendering

N = TypeVar("N", int, float)

DESCRIPTION = f"""\
Compare two ConformanceReports item by item (test id and layout) and clause by
clause: regressions (passed -> failed or error), fixes, other changes, items
and clauses added or removed, features and layouts newly claimed or unclaimed,
first try versus final verdict, and tests whose duration moved by
--timing-ratio (the report has no per-phase timings). Differing items are not
rerun, which needs a cluster: each says "not rerun" (`python -m conformance
qualify` reruns them and says which flipped). With --explained FILE, a change
an entry of FILE explains is marked "(explained)" with its reason, and an
explained regression does not count; entries matching nothing are listed.

exit codes: 0 no regression, {int(ExitCode.REGRESSION)} a regression, \
{int(ExitCode.INVALID_INPUT)} a file that is not a ConformanceReport or a bad FILE
"""
"""The verb's --help text, for people (the module docstring is for developers)."""


def number(text: str, parse: Callable[[str], N], kind: str = "a number") -> N:
    """`parse(text)` for an argparse type; ArgumentTypeError `not <kind>` otherwise."""
    try:
        return parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from exc


def ratio(text: str) -> float:
    """An argparse type: a number above 1."""
    value = number(text, float)
    if value <= 1.0:
        raise argparse.ArgumentTypeError(
            "must be above 1 (1.5 flags 50% slower or faster)"
        )
    return value


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, zero or more."""
    value = number(text, float)
    if value < 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `diff` verb's two reports and options."""
    parser.add_argument("old", type=Path, help="the earlier ConformanceReport (YAML)")
    parser.add_argument("new", type=Path, help="the later ConformanceReport (YAML)")
    parser.add_argument(
        "--output", type=Path, default=None, help="also write the diff as YAML here"
    )
    parser.add_argument(
        "--timing-ratio",
        type=ratio,
        default=1.5,
        help="flag tests whose duration grew or shrank by this factor (default 1.5)",
    )
    parser.add_argument(
        "--min-seconds",
        type=seconds,
        default=1.0,
        help="ignore durations when both are shorter than this (default 1.0)",
    )
    parser.add_argument(
        "--explained",
        type=Path,
        default=None,
        metavar="FILE",
        help="explanations of expected changes (ExplainedDifferences YAML, as "
        "wpc/qualify/explained.yaml); default: none",
    )


def main(args: argparse.Namespace) -> int:
    """Compare, print the table, write the YAML if asked; the exit code says if it regressed."""
    entries = explaining.load(args.explained) if args.explained else None
    old = reading.read(args.old)
    new = reading.read(args.new)
    diff = comparing.compare(
        old,
        new,
        old_path=str(args.old),
        new_path=str(args.new),
        timing_ratio=args.timing_ratio,
        min_seconds=args.min_seconds,
    )
    if entries is not None:
        diff = explaining.apply(diff, entries, source=str(args.explained))
    sys.stdout.write(rendering.table(diff))
    if args.output is not None:
        textfiles.write(args.output, rendering.yaml_text(diff))
        sys.stdout.write(f"diff: {args.output}\n")
    return ExitCode.REGRESSION if diff.regressed else 0
