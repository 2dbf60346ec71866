"""`merge` and `bench-suite`: the command lines of sharded runs and their timing.

merge REPORT... -o OUT   shard reports (`run --shard I/N`) joined into the report,
                         HTML and JUnit XML of the whole selection
                         (`conformance.report.merging`)
bench-suite REPORT       wall time, sum of item times, packing efficiency and the
                         slowest items of a run (`conformance.report.runs.suitetimes`)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.errors import DataError
from conformance.report import merging
from conformance.report.rendering import html
from conformance.report.rendering import junit
from conformance.report.runs import documents
from conformance.report.runs import suitetimes

MERGE_DESCRIPTION = (
    "Join the reports of `run --shard 1/N` ... `--shard N/N` into the report of the "
    "whole selection, with its HTML page beside it and its JUnit XML. Refuses shards "
    "of different code, spec, implementation or selection, a shard given twice and "
    "a missing one (exit 10)."
)


def add_merge_arguments(parser: argparse.ArgumentParser) -> None:
    """The `merge` verb's arguments."""
    parser.add_argument("reports", nargs="+", type=Path, help="shard reports (YAML)")
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="merged report YAML to write"
    )
    parser.add_argument(
        "--junit",
        type=Path,
        default=None,
        help="JUnit XML to write (default: junit-<implementation>.xml beside OUTPUT)",
    )


def main_merge(args: argparse.Namespace) -> int:
    """Merge, then write the report, its HTML page and the JUnit XML."""
    merged = merging.merge(merging.read(args.reports))
    name = merged["implementation"]["name"]
    junit_path = args.junit or args.output.parent / f"junit-{name}.xml"
    documents.write(merged, args.output)
    page = html.path_beside(args.output)
    html.write(merged, page)
    junit.write(
        merging.junit_records(merged["tests"]), junit_path, suite_name=f"wpc-{name}"
    )
    sys.stdout.write(f"{args.output}\n{page}\n{junit_path}\n")
    return 0


def add_bench_suite_arguments(parser: argparse.ArgumentParser) -> None:
    """The `bench-suite` verb's arguments."""
    parser.add_argument("report", type=Path, help="ConformanceReport YAML of a run")


def main_bench_suite(args: argparse.Namespace) -> int:
    """Print the run's times."""
    try:
        times = suitetimes.measure(html.read(args.report))
    except DataError as exc:
        raise DataError(f"{args.report}: {exc}") from exc
    sys.stdout.write("".join(f"{line}\n" for line in times.lines()))
    return 0
