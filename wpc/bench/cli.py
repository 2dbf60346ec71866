"""The `bench` and `bench-compare` verbs of `python -m conformance`.

Only parses arguments into `BenchSettings` and a `ClusterChoice`; the work is
`running.run` (measure) and `tables` (print). `wpc.suite_cli` adds
these verbs to its parser and calls `main_bench` / `main_compare`.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from conformance.harness.cluster.timeouts import checked_scale
from conformance.harness.instances import layouts
from conformance.implementations import variables
from conformance.implementations.contexts import ClusterChoice
from wpc.bench import reporting
from wpc.bench import running
from wpc.bench import tables
from wpc.bench.settings import BenchSettings


def positive(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    """The `bench` verb's flags, with `BenchSettings`' defaults."""
    defaults = BenchSettings()
    parser.add_argument(
        "--implementation",
        default=defaults.implementation,
        help="profile: bundled name (reference, argo-workflows) or path to a YAML",
    )
    parser.add_argument(
        "--profile-var",
        dest="profile_vars",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a profile variable, repeatable (e.g. source=DIR ref=v4.1.2 for upstream)",
    )
    layouts.add_argument(parser, help="the pod layouts to measure (default both)")
    parser.add_argument(
        "--workflows",
        type=positive,
        default=defaults.workflows,
        help=f"one-pod workflows per layout (default {defaults.workflows})",
    )
    parser.add_argument(
        "--inflight",
        type=positive,
        default=defaults.inflight,
        help=f"workflows in flight per layout (default {defaults.inflight})",
    )
    parser.add_argument(
        "--skip-prepare",
        action="store_true",
        help="do not run the profile's prepare commands (images already loaded)",
    )
    parser.add_argument("--reports-dir", type=Path, default=defaults.reports_dir)
    parser.add_argument(
        "--timeout-scale",
        type=float,
        default=1.0,
        help="multiply every named timeout",
    )
    parser.add_argument("--provider", default="local")
    parser.add_argument("--cluster", "--cluster-name", default="wpc")
    parser.add_argument(
        "--kubeconfig", type=Path, help="use this cluster as it is (no `clusters`)"
    )
    parser.add_argument(
        "--allow-foreign-cluster",
        action="store_true",
        help="run against a cluster without the WPC marker ConfigMap",
    )


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """The `bench-compare` verb's two result files."""
    parser.add_argument("first", type=Path, help="result YAML (numerator)")
    parser.add_argument("second", type=Path, help="result YAML (denominator)")


def settings_of(args: argparse.Namespace) -> BenchSettings:
    """The settings the parsed `bench` arguments ask for; DataError for bad values."""
    defaults = BenchSettings()
    return dataclasses.replace(
        defaults,
        implementation=args.implementation,
        profile_vars=tuple(variables.parse(args.profile_vars).items()),
        workflows=args.workflows,
        inflight=args.inflight,
        layouts=layouts.parse_selection(args.layout),
        prepare=not args.skip_prepare,
        reports_dir=args.reports_dir,
        timeouts=defaults.timeouts.scaled(
            checked_scale(args.timeout_scale, "--timeout-scale")
        ),
    )


def main_bench(args: argparse.Namespace) -> int:
    """Run the benchmark; print its table and where the result went."""
    settings = settings_of(args)
    document = running.run(settings, cluster=ClusterChoice.of(args))
    sys.stdout.write(tables.run_table(document))
    path = settings.reports_dir / f"bench-{document['implementation']['name']}.yaml"
    sys.stdout.write(f"\nmethod: {reporting.METHOD}\nresult: {path}\n")
    return 0


def main_compare(args: argparse.Namespace) -> int:
    """Print two results side by side, per layout, with first / second."""
    first = reporting.read(args.first)
    second = reporting.read(args.second)
    sys.stdout.write(tables.compare_table(first, second))
    return 0
