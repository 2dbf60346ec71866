"""The `qualify` verb of `python -m conformance` (`make qualify OLD=... NEW=...`).

Only parses arguments and hands over: `builds` names the two builds,
`qualifying` runs, diffs and reruns with a `running.SuiteRunner`, `rendering`
has already written the table, printed here. The exit code is the diff's:
`ExitCode.REGRESSION` for a regression that did not flip on rerun and that no
entry of the explanations file explains, 0 otherwise. `--rediff DIR` skips the
builds and runs and recomputes DIR's diff (`qualifying.rediff`).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.instances import layouts
from conformance.plugin.state import scheduling
from wpc.diff import cli as diff_cli
from wpc.qualify import builds
from wpc.qualify import chaos_running
from wpc.qualify import qualifying
from wpc.qualify import running

logger = logging.getLogger(__name__)

SOURCE_ENV = "WPC_ARGO_SOURCE"
"""The source tree when --source is not given (as for the upstream profile's builder)."""

DESCRIPTION = f"""\
Qualify a release: build OLD and NEW (git refs of one source tree) with the
implementation's profile, run the whole suite against each (both layouts by
default), diff the two reports, rerun every item whose verdict differs
--reruns times against each version, and print the diff. Each difference is
then confirmed (every run of each version agreed) or flaky (some version's
verdict flipped; listed with each run's report, not counted as a regression).
A difference an entry of the explanations file (--explained, default
wpc/qualify/explained.yaml; --no-explained for none) explains is
marked "(explained)" with its reason and, if a regression, not counted; entries
that explain nothing are listed as unused.
--with-chaos (`make qualify` gives it unless CHAOS=no) also runs the chaos suite
(`python -m chaos run`, every experiment in each layout) against each version,
diffs its cases (an experiment in a layout) and reruns each differing case as
it reruns items: confirmed, flaky or explained (an entry's `experiment`), counted
in the verdict; a case not applicable on a side (the provider or profile cannot
inject its fault) is listed with its reason and not counted.
Files: <out>/old, <out>/new, <out>/rerun-<round>-<side>-<layout> (reports),
<out>/chaos-old, <out>/chaos-new, <out>/chaos-rerun-<round>-<side>-<layout>
(ChaosReports), <out>/diff.yaml and <out>/diff.txt. Each run brings the cluster
up as `run` does. --shard I/N runs only that shard of the suite against each
version (out: reports/qualify-OLD-NEW-shard-I-of-N), so N runners share a
qualification; each shard's diff and exit code cover its items.
--rediff DIR runs nothing: it recomputes DIR/diff.yaml and DIR/diff.txt from the
reports a finished qualification left there (only --explained, --no-explained
and --timing-ratio apply; the refs come from the reports).

exit codes: 0 no confirmed, unexplained regression, {int(ExitCode.REGRESSION)} a regression, \
{int(ExitCode.INVALID_INPUT)} bad arguments, profile or explanations, \
{int(ExitCode.PREPARE_FAILED)} a run left no report
"""


def _rounds(text: str) -> int:
    value = diff_cli.number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `qualify` verb's options."""
    parser.add_argument("--old", help="the earlier git ref (e.g. v4.1.0); required")
    parser.add_argument("--new", help="the later git ref (e.g. v4.1.2); required")
    parser.add_argument(
        "--source",
        default=None,
        help=f"the source tree or git repository (default: ${SOURCE_ENV})",
    )
    parser.add_argument(
        "--implementation", default="argo-workflows", help="profile name or path"
    )
    layouts.add_argument(parser)
    parser.add_argument(
        "--reruns",
        type=_rounds,
        default=2,
        help="rerun each differing item this many times per version (default 2)",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=None,
        help="where reports and the diff go (default: reports/qualify-OLD-NEW)",
    )
    running.add_suite_arguments(parser)
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run shard I of N of the suite against each version (as `run --shard`); "
        "the reruns and the diff cover that shard's items",
    )
    parser.add_argument(
        "--timing-ratio",
        type=diff_cli.ratio,
        default=1.5,
        help="flag tests whose duration moved by this factor (default 1.5)",
    )
    explained = parser.add_mutually_exclusive_group()
    explained.add_argument(
        "--explained",
        type=Path,
        default=qualifying.DEFAULT_EXPLAINED,
        metavar="FILE",
        help="explanations of expected differences (default: "
        "wpc/qualify/explained.yaml)",
    )
    explained.add_argument(
        "--no-explained",
        dest="explained",
        action="store_const",
        const=None,
        help="apply no explanations: every confirmed regression counts",
    )
    chaos = parser.add_mutually_exclusive_group()
    chaos.add_argument(
        "--with-chaos",
        dest="chaos",
        action="store_true",
        default=False,
        help="run the chaos suite on both versions too, and diff and rerun its cases",
    )
    chaos.add_argument(
        "--without-chaos",
        dest="chaos",
        action="store_false",
        help="the conformance suite only (the default of the verb)",
    )
    parser.add_argument(
        "--one-side-at-a-time",
        dest="side_by_side",
        action="store_false",
        default=True,
        help="run the suite against OLD, then NEW (and so each round's reruns); by "
        "default both run side by side on the cluster, each one's output in its "
        "reports directory's console.log",
    )
    parser.add_argument(
        "--rediff",
        type=Path,
        default=None,
        metavar="DIR",
        help="run nothing: recompute DIR/diff.yaml and DIR/diff.txt from a finished "
        "qualification's reports (old/, new/, rerun-*/)",
    )


def _print(outcome: qualifying.Outcome) -> int:
    sys.stdout.write(outcome.table_path.read_text(encoding="utf-8"))
    sys.stdout.write(f"diff: {outcome.yaml_path}\ntable: {outcome.table_path}\n")
    return ExitCode.REGRESSION if outcome.diff.regressed else 0


def _side_by_side(old: builds.Build, new: builds.Build) -> bool:
    """Whether the builds can share the cluster at once; if not, say why."""
    conflict = builds.shared_cluster_conflict(old, new)
    if conflict:
        logger.warning("Running OLD, then NEW, not side by side: %s.", conflict)
    return not conflict


def main(args: argparse.Namespace) -> int:
    """Qualify (or rediff), print the diff's table and where the files are; exit as it says."""
    if args.rediff is not None:
        if args.old or args.new:
            raise DataError(
                "qualify --rediff: the refs come from the directory's reports; "
                "drop --old and --new"
            )
        return _print(
            qualifying.rediff(
                args.rediff, explained=args.explained, timing_ratio=args.timing_ratio
            )
        )
    if not args.old or not args.new:
        raise DataError(
            "qualify: give --old and --new (git refs, e.g. v4.1.0 and v4.1.2), "
            "or --rediff DIR"
        )
    source = args.source if args.source is not None else os.environ.get(SOURCE_ENV, "")
    if not source:
        # Without a tree the refs would mean nothing (the module proxy builds one version).
        raise DataError(
            f"qualify: give --source (a git repository holding {args.old} and "
            f"{args.new}) or set {SOURCE_ENV}"
        )
    old, new = builds.plan(args.old, args.new, source)
    for build in (old, new):
        builds.check_profile(args.implementation, build)
    shard = scheduling.parse_shard(args.shard) if args.shard is not None else None
    suffix = f"-shard-{shard.index}-of-{shard.count}" if shard else ""
    out_dir = args.output_dir or Path("reports") / (
        f"qualify-{old.build}-{new.build}{suffix}"
    )
    plan = qualifying.Plan(
        old=old,
        new=new,
        out_dir=out_dir,
        layout=args.layout,
        rounds=args.reruns,
        timing_ratio=args.timing_ratio,
        explained=args.explained,
        shard=str(shard) if shard else "",
        chaos=args.chaos,
        side_by_side=args.side_by_side and _side_by_side(old, new),
    )
    runner = running.runner_from_args(args)
    chaos_runner = chaos_running.runner_from_args(args) if args.chaos else None
    return _print(qualifying.qualify(plan, runner, chaos_runner))
