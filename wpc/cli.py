"""wpc: the Workflow Pod Conformance suite.

commands:
  run ...            the conformance suite (= python -m conformance run ...)
  diff OLD NEW       two ConformanceReports compared (= python -m conformance diff ...)
  layout-diff A B    where two implementations' layouts differ (= python -m conformance layout-diff ...)
  differential ...   a corpus of Workflows under two implementations (= python -m conformance differential ...)
  qualify ...        two upstream releases built, run and diffed (= python -m conformance qualify ...)
  merge REPORT... -o OUT  shard reports joined into one (= python -m conformance merge ...)
  bench-suite REPORT a run's wall time, item times, packing efficiency (= python -m conformance bench-suite ...)
  history [run ...]  upstream's fixed bugs, listed or run before and after each fix (= python -m conformance history)
  cluster ...        clusters: up, down, status, load-image, ... (= python -m clusters ...)
  chaos ...          chaos experiments and checks (= python -m chaos ...)
  profile check P    validate an implementation profile without a cluster
  profile init [P]   write a commented skeleton profile to start from

`wpc COMMAND --help` shows each command's own options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

import conformance
from conformance.exitcodes import ExitCode

CONFORMANCE_VERBS = (
    "run",
    "diff",
    "layout-diff",
    "differential",
    "qualify",
    "history",
    "merge",
    "bench-suite",
)
"""Delegated verbs that are verbs of `python -m conformance` too (same name)."""
DELEGATED = (*CONFORMANCE_VERBS, "cluster", "chaos")
"""Verbs whose arguments belong, unparsed, to an existing front end."""


def _conformance_main(verb: str) -> Callable[[list[str]], int]:
    """The front end of `python -m conformance VERB`, under the name wpc."""

    def main(argv: list[str]) -> int:
        from conformance import __main__ as conformance_cli

        return conformance_cli.main([verb, *argv], prog="wpc")

    return main


def _cluster_main(argv: list[str]) -> int:
    from clusters import cli as clusters_cli

    return clusters_cli.main(argv)


def _chaos_main(argv: list[str]) -> int:
    from chaos import cli as chaos_cli

    return chaos_cli.main(argv)


FRONT_ENDS: dict[str, Callable[[list[str]], int]] = {
    **{verb: _conformance_main(verb) for verb in CONFORMANCE_VERBS},
    "cluster": _cluster_main,
    "chaos": _chaos_main,
}


def front_end_parser(verb: str) -> argparse.ArgumentParser:
    """The parser a delegated verb's arguments go to (for checking a command line)."""
    if verb in CONFORMANCE_VERBS:
        from conformance import __main__ as conformance_cli

        return conformance_cli.parser(prog="wpc")
    if verb == "cluster":
        from clusters import cli as clusters_cli

        return clusters_cli._parser()
    if verb == "chaos":
        from chaos import cli as chaos_cli

        return chaos_cli._parser()
    raise KeyError(verb)


def parser() -> argparse.ArgumentParser:
    """The `wpc` parser: the delegated verbs for help, `profile` in full."""
    p = argparse.ArgumentParser(
        prog="wpc",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--version", action="version", version=f"wpc {conformance.__version__}"
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="COMMAND")
    for verb, help_text in (
        ("run", "run the conformance suite against an implementation"),
        ("diff", "compare two ConformanceReports: regressions, fixes, clauses"),
        ("layout-diff", "where two implementations' layouts differ, alike or not"),
        ("differential", "a corpus of Workflows under two implementations, compared"),
        ("qualify", "two upstream releases built from source, run and diffed"),
        ("merge", "shard reports (run --shard I/N) joined into one report"),
        ("bench-suite", "a run's wall time, item times, packing efficiency"),
        (
            "history",
            "upstream's fixed bugs: listed, or each run before and after its fix",
        ),
        ("cluster", "make, inspect and delete clusters"),
        ("chaos", "chaos experiments and invariant checks"),
    ):
        sub = verbs.add_parser(verb, help=help_text, add_help=False)
        sub.add_argument("args", nargs=argparse.REMAINDER)
    profile = verbs.add_parser(
        "profile", help="check or start an implementation profile"
    )
    actions = profile.add_subparsers(dest="action", required=True)
    check = actions.add_parser(
        "check", help="validate a profile (schema, placeholders, images, features)"
    )
    check.add_argument("profile", help="bundled profile name or path to a profile YAML")
    check.add_argument(
        "--profile-var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of a variable the profile declares (repeatable)",
    )
    init = actions.add_parser("init", help="write a commented skeleton profile")
    init.add_argument("path", nargs="?", type=Path, default=Path("wpc-profile.yaml"))
    init.add_argument("--name", default="my-controller", help="the profile's name")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    return p


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a full `wpc` command line, delegated verbs by their own parser.

    Runs nothing; argparse exits (code 2) on a bad command line, as it would
    for the real command.
    """
    args = list(argv)
    if args and args[0] in DELEGATED:
        return front_end_parser(args[0]).parse_args(
            [args[0], *args[1:]] if args[0] in CONFORMANCE_VERBS else args[1:]
        )
    return parser().parse_args(args)


def _profile(args: argparse.Namespace) -> int:
    from conformance.errors import DataError
    from conformance.implementations import checking

    out = sys.stdout
    try:
        if args.action == "init":
            path = checking.write_skeleton(args.path, name=args.name, force=args.force)
            out.write(f"wrote {path}; edit it, then: wpc profile check {path}\n")
            return 0
        profile = checking.check(
            args.profile, variables=checking.parse_variables(args.profile_var)
        )
    except DataError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return ExitCode.INVALID_INPUT
    out.write(
        f"{profile.path}: valid profile {profile.name} {profile.version}\n"
        f"  layouts: {', '.join(profile.layouts)}\n"
        f"  features: {', '.join(sorted(profile.features))}\n"
        f"  images: {', '.join(f'{k}={v}' for k, v in sorted(profile.images.items()))}\n"
        f"  commands: {', '.join(k for k, v in profile.commands.items() if v)}\n"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one `wpc` command; returns its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in FRONT_ENDS:
        return FRONT_ENDS[args[0]](args[1:])
    return _profile(parser().parse_args(args))
