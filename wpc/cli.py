"""wpc: the Workflow Pod Conformance suite, one command per job (listed below).

`wpc COMMAND --help` shows each command's own options. Without a cluster:
`wpc run --list` (what would run, and why anything is skipped), `wpc chaos run
--list` (the chaos suite's cases), `wpc profile check|init`, `diff`, `layout-diff`,
`html` and `history`. `python -m conformance`, `python -m chaos` and `python -m
clusters` are shims over the same commands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

import conformance
from conformance.exitcodes import ExitCode

SUITE_VERBS = {
    "run": "run the conformance suite against an implementation",
    "bench": "pod startup by phase and workflows per minute, per layout",
    "bench-compare": "two bench results side by side, with ratios",
    "differential": "a corpus of Workflows under two implementations, compared",
    "diff": "compare two ConformanceReports: regressions, fixes, clauses",
    "layout-diff": "where two implementations' layouts differ, alike or not",
    "qualify": "two upstream releases built from source, run and diffed",
    "history": "upstream's fixed bugs: listed, or each run before and after its fix",
    "html": "render a ConformanceReport YAML as one self-contained HTML page",
    "merge": "shard reports (run --shard I/N) joined into one report, HTML, JUnit",
    "stability": "reports of runs of one selection compared: which items flipped",
    "summary": "a report as a CI job shows it: Markdown verdict table, ::error lines",
    "bench-suite": "a run's wall time, item times, packing efficiency, slowest items",
    "uninstall": "remove an implementation's shared controller instances",
    "load-images": "build an implementation's images and load them into the cluster",
    "images": "export the tools and implementation images as OCI archives (images export DIR)",
}
"""The suite's verbs (`wpc.suite_cli`, also `python -m conformance VERB`), with help."""
DELEGATED = {
    **SUITE_VERBS,
    "cluster": "make, inspect and delete clusters",
    "chaos": "the chaos suite and invariant checks",
}
"""Verbs whose arguments belong, unparsed, to the parser of their own module."""
PROG = "wpc"


def _suite_main(verb: str) -> Callable[[list[str]], int]:
    """The suite verb `verb`, under the name wpc."""

    def main(argv: list[str]) -> int:
        from wpc import suite_cli

        return suite_cli.main([verb, *argv], prog=PROG)

    return main


def cluster(argv: list[str], *, prog: str = f"{PROG} cluster") -> int:
    """`wpc cluster ...` (and, under its old name, `python -m clusters ...`)."""
    from clusters import cli as clusters_cli

    return clusters_cli.main(argv, prog=prog)


def chaos(argv: list[str], *, prog: str = f"{PROG} chaos") -> int:
    """`wpc chaos ...` (and, under its old name, `python -m chaos ...`)."""
    from chaos import cli as chaos_cli
    from wpc.stability import repeating

    # `chaos run --repeat N` compares its runs with the suite's comparison,
    # which lives here, above chaos: chaos is handed the runner.
    return chaos_cli.main(argv, prog=prog, run_suite=repeating.chaos)


FRONT_ENDS: dict[str, Callable[[list[str]], int]] = {
    **{verb: _suite_main(verb) for verb in SUITE_VERBS},
    "cluster": cluster,
    "chaos": chaos,
}


def front_end_parser(verb: str) -> argparse.ArgumentParser:
    """The parser a delegated verb's arguments go to (for checking a command line)."""
    if verb in SUITE_VERBS:
        from wpc import suite_cli

        return suite_cli.parser(prog=PROG)
    if verb == "cluster":
        from clusters import cli as clusters_cli

        return clusters_cli._parser(prog=f"{PROG} cluster")
    if verb == "chaos":
        from chaos import cli as chaos_cli

        return chaos_cli._parser(prog=f"{PROG} chaos")
    raise KeyError(verb)


def parser() -> argparse.ArgumentParser:
    """The `wpc` parser: the delegated verbs for help, `profile` in full."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--version", action="version", version=f"wpc {conformance.__version__}"
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="COMMAND")
    for verb, help_text in DELEGATED.items():
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
            [args[0], *args[1:]] if args[0] in SUITE_VERBS else args[1:]
        )
    return parser().parse_args(args)


def _profile(args: argparse.Namespace) -> int:
    from conformance.errors import DataError
    from conformance.implementations import checking
    from conformance.implementations import variables

    out = sys.stdout
    try:
        if args.action == "init":
            path = checking.write_skeleton(args.path, name=args.name, force=args.force)
            out.write(f"wrote {path}; edit it, then: wpc profile check {path}\n")
            return 0
        profile = checking.check(
            args.profile, variables=variables.parse(args.profile_var)
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
