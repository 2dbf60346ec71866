"""Command line: `python -m reference_impl.bench --cluster wpc [--count 50] ...`.

Only parses arguments; the work is `running.run`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from reference_impl.bench import reporting
from reference_impl.bench import running
from reference_impl.bench.errors import BenchError
from reference_impl.bench.settings import LAYOUTS
from reference_impl.bench.settings import BenchSettings


def _layouts(text: str) -> tuple[str, ...]:
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    bad = [layout for layout in chosen if layout not in LAYOUTS]
    if bad or not chosen:
        raise argparse.ArgumentTypeError(
            f"layouts must be a comma-separated subset of {','.join(LAYOUTS)}"
        )
    return chosen


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _instance(text: str) -> tuple[str, str]:
    layout, sep, instance = text.partition("=")
    if not sep or layout not in LAYOUTS or not instance:
        raise argparse.ArgumentTypeError("expected LAYOUT=INSTANCE_ID")
    return layout, instance


def _parser() -> argparse.ArgumentParser:
    defaults = BenchSettings()
    parser = argparse.ArgumentParser(
        prog="python -m reference_impl.bench",
        description="Pod startup and throughput of one-pod workflows, per layout.",
    )
    parser.add_argument("--cluster", required=True, help="cluster name, e.g. wpc")
    parser.add_argument(
        "--kubeconfig",
        help="kubeconfig path (default: `python -m clusters kubeconfig --name CLUSTER`)",
    )
    parser.add_argument("--count", type=_positive, default=defaults.count)
    parser.add_argument(
        "--concurrency",
        type=_positive,
        default=defaults.concurrency,
        help="workflows in flight per layout",
    )
    parser.add_argument(
        "--layouts", type=_layouts, default=defaults.layouts, help="legacy,initless"
    )
    parser.add_argument(
        "--instance",
        type=_instance,
        action="append",
        default=[],
        metavar="LAYOUT=ID",
        help="controller instance ID of a layout (default wpc-<layout>)",
    )
    parser.add_argument("--report", type=Path, default=Path("reports/bench.json"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table; return the process exit code."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s"
    )
    defaults = BenchSettings()
    settings = BenchSettings(
        count=args.count,
        concurrency=args.concurrency,
        layouts=args.layouts,
        instance_ids={**defaults.instance_ids, **dict(args.instance)},
    )
    try:
        kubeconfig = args.kubeconfig or running.find_kubeconfig(args.cluster)
        document = running.run(
            settings,
            kubeconfig=kubeconfig,
            cluster=args.cluster,
            report_path=args.report,
        )
    except BenchError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    sys.stdout.write(reporting.table(document))
    sys.stdout.write(f"\nmethod: {reporting.METHOD}\nreport: {args.report}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
