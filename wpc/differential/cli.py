"""The `differential` verb of `python -m conformance`: argument parsing only.

The work is `running.run`; this module turns the command line into its
`Settings` and a `ClusterChoice`, prints the table and says where the YAML went.
Exit code 0 when every difference is known, `ExitCode.DIFFERENT` otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import contract
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.cluster.timeouts import checked_scale
from conformance.harness.instances import layouts
from conformance.implementations import variables
from conformance.implementations.contexts import ClusterChoice
from wpc.differential import images
from wpc.differential import known
from wpc.differential import reporting
from wpc.differential import results
from wpc.differential import running
from wpc.differential.images import ImagePolicy

CORPUS = Path(__file__).with_name("corpus")
DESCRIPTION = __doc__


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verb's flags."""
    p.add_argument("--a", required=True, help="profile of side A (name or path)")
    p.add_argument("--b", required=True, help="profile of side B (name or path)")
    p.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help="directory of Workflow YAML files, e.g. an upstream checkout's examples/ "
        f"(default: the project's, {CORPUS.relative_to(CORPUS.parents[2])})",
    )
    p.add_argument(
        "--layout",
        type=layouts.layout_argument,
        metavar=layouts.metavar(contract.LAYOUTS),
        default=contract.LEGACY,
    )
    for letter in ("a", "b"):
        p.add_argument(
            f"--profile-var-{letter}",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"a variable of side {letter.upper()}'s profile, repeatable",
        )
    p.add_argument(
        "--known",
        type=Path,
        default=known.SHIPPED,
        help="YAML: corpus file -> reason its differences are expected "
        "(default: the shipped wpc/differential/known.yaml)",
    )
    p.add_argument(
        "--image-map",
        action="append",
        default=[],
        metavar="FROM=TO",
        help="run image FROM (a repository, any tag; or an exact reference) as TO, "
        "repeatable; see docs/differential.md for the honest ones",
    )
    p.add_argument(
        "--allow-image",
        action="append",
        default=[],
        metavar="REF",
        help=f"an image the cluster has besides the tools image ({contract.TOOLS_IMAGE})",
    )
    p.add_argument("--out", type=Path, default=Path("reports"), help="report directory")
    p.add_argument(
        "--inflight",
        type=int,
        default=running.Settings.inflight,
        help="corpus files in flight at once, each on both sides (default %(default)s)",
    )
    p.add_argument(
        "--skip-prepare",
        action="store_true",
        help="do not run the profiles' prepare commands (images already loaded)",
    )
    p.add_argument("--timeout-scale", type=float, default=1.0)
    p.add_argument("--provider", default="local")
    p.add_argument("--cluster", "--cluster-name", default="wpc")
    p.add_argument("--kubeconfig", type=Path, default=None)
    p.add_argument("--allow-foreign-cluster", action="store_true")


def settings_of(args: argparse.Namespace) -> running.Settings:
    """The run the parsed arguments ask for; DataError for bad values."""
    if args.inflight < 1:
        raise DataError(f"--inflight {args.inflight}: must be at least 1")
    scale = checked_scale(args.timeout_scale, "--timeout-scale")
    return running.Settings(
        a=args.a,
        b=args.b,
        corpus=args.corpus,
        layout=args.layout,
        a_vars=variables.parse(args.profile_var_a, source="--profile-var-a"),
        b_vars=variables.parse(args.profile_var_b, source="--profile-var-b"),
        known=args.known,
        policy=ImagePolicy(
            allowed=frozenset({contract.TOOLS_IMAGE, *args.allow_image}),
            mapping=images.parse_map(args.image_map),
        ),
        out=args.out,
        prepare=not args.skip_prepare,
        inflight=args.inflight,
        timeouts=Timeouts().scaled(scale),
    )


def main(args: argparse.Namespace) -> int:
    """Run; print the table and the report's path; non-zero on an unknown difference."""
    settings = settings_of(args)
    document = running.run(settings, cluster=ClusterChoice.of(args))
    sys.stdout.write(reporting.table(document))
    a, b = (document["sides"][k]["implementation"] for k in ("a", "b"))
    sys.stdout.write(f"result: {settings.result_path(a, b)}\n")
    unexpected = [f for f in document["files"] if f["verdict"] in results.FAILING]
    return ExitCode.DIFFERENT if unexpected else 0
