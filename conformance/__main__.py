"""`python -m conformance`: argument parsing only (work in `running`, `loading`).

run            cluster up, install, the suite in the selected layouts, reports
bench          pod startup by phase and throughput of an implementation, per layout
bench-compare  two bench results side by side, with ratios
load-images    build an implementation's images and load them into the cluster
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from clusters.errors import ClusterError
from conformance import launching
from conformance.bench import cli as bench_cli
from conformance.errors import ConformanceError
from conformance.implementations import images
from conformance.plugin import options


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m conformance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="verb", required=True)
    run = sub.add_parser(
        "run", help="run the conformance suite against an implementation"
    )
    # The suite's options, exactly as plain pytest takes them.
    options.add_arguments(run)
    run.add_argument("--reports-dir", type=Path, default=Path("reports"))
    run.add_argument(
        "-n", "--workers", type=int, default=0, help="pytest-xdist workers"
    )
    run.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    bench = sub.add_parser(
        "bench",
        help="pod startup by phase and workflows per minute, per layout",
        description=bench_cli.__doc__,
    )
    bench_cli.add_bench_arguments(bench)
    compare = sub.add_parser(
        "bench-compare", help="two bench results side by side, with ratios"
    )
    bench_cli.add_compare_arguments(compare)
    load = sub.add_parser(
        "load-images", help="build and load images named by a command"
    )
    load.add_argument("--provider", default="local")
    load.add_argument("--cluster", "--cluster-name", default="wpc")
    load.add_argument("--workdir", type=Path, required=True)
    load.add_argument(
        "command", nargs="+", help="command printing '<ref> <context>' lines"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one verb; errors print their evidence and exit 2."""
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        if args.verb == "bench":
            return bench_cli.main_bench(args)
        if args.verb == "bench-compare":
            return bench_cli.main_compare(args)
        if args.verb == "load-images":
            refs = images.load_images(
                command=args.command,
                provider=args.provider,
                cluster=args.cluster,
                workdir=args.workdir,
            )
            sys.stdout.write("".join(f"loaded {ref}\n" for ref in refs))
            return 0
        if args.wpc_implementation is None:
            parser.error("run: the following arguments are required: --implementation")
        return launching.run(
            launching.RunRequest(
                options={o.dest: getattr(args, o.dest) for o in options.OPTIONS},
                reports_dir=args.reports_dir,
                workers=args.workers,
                pytest_args=tuple(args.pytest_args),
            )
        )
    except (ConformanceError, ClusterError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
