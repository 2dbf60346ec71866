"""`python -m conformance`: argument parsing only (work in `running`, `loading`).

run          cluster up, install, the suite in the selected layouts, reports
load-images  build an implementation's images and load them into the cluster
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from clusters.errors import ClusterError
from conformance import launching
from conformance.errors import ConformanceError
from conformance.implementations import images


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
    run.add_argument("--implementation", required=True, help="profile name or path")
    run.add_argument("--layout", default="both", choices=("legacy", "initless", "both"))
    run.add_argument("--provider", default="local")
    run.add_argument(
        "--cluster", default="wpc", help="cluster name for `python -m clusters`"
    )
    run.add_argument(
        "--kubeconfig",
        type=Path,
        default=None,
        help="use this cluster as it is (no `clusters up`)",
    )
    run.add_argument("--reports-dir", type=Path, default=Path("reports"))
    run.add_argument(
        "--report",
        type=Path,
        default=None,
        help="ConformanceReport path (default: <reports-dir>/conformance-<name>.yaml)",
    )
    run.add_argument("--features", default=None)
    run.add_argument("--timeout-scale", type=float, default=1.0)
    run.add_argument("--skip-install", action="store_true")
    run.add_argument("--allow-foreign-cluster", action="store_true")
    run.add_argument(
        "--negative-controls",
        type=Path,
        default=None,
        metavar="PATH",
        help="NegativeControlsReport (make negative-controls) whose mutation score "
        "the report carries; only with the implementation whose variants were run",
    )
    run.add_argument(
        "-n", "--workers", type=int, default=0, help="pytest-xdist workers"
    )
    run.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    load = sub.add_parser(
        "load-images", help="build and load images named by a command"
    )
    load.add_argument("--provider", default="local")
    load.add_argument("--cluster", default="wpc")
    load.add_argument("--workdir", type=Path, required=True)
    load.add_argument(
        "command", nargs="+", help="command printing '<ref> <context>' lines"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one verb; errors print their evidence and exit 2."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        if args.verb == "load-images":
            refs = images.load_images(
                command=args.command,
                provider=args.provider,
                cluster=args.cluster,
                workdir=args.workdir,
            )
            sys.stdout.write("".join(f"loaded {ref}\n" for ref in refs))
            return 0
        return launching.run(
            launching.RunRequest(
                implementation=args.implementation,
                layout=args.layout,
                provider=args.provider,
                cluster=args.cluster,
                kubeconfig=args.kubeconfig,
                reports_dir=args.reports_dir,
                report=args.report,
                features=args.features,
                timeout_scale=args.timeout_scale,
                skip_install=args.skip_install,
                allow_foreign_cluster=args.allow_foreign_cluster,
                workers=args.workers,
                pytest_args=tuple(args.pytest_args),
                negative_controls=args.negative_controls,
            )
        )
    except (ConformanceError, ClusterError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
