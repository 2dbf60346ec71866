"""`python -m chaos`: argument parsing and output only.

run     the whole chaos suite: every experiment in each layout it declares,
        the layouts side by side, then the node faults alone (`--list`: what
        would run, no cluster)
check   run the invariants over a recorded history; exit 0 when none is
        violated, 1 when some are, 2 when the input is bad
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import replace

from chaos.errors import HistoryError
from chaos.history.records import load_history
from chaos.invariants import INVARIANTS
from chaos.invariants import InvariantSettings
from chaos.invariants import check
from chaos.reporting import violation_text
from chaos.suite import parallel

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2  # also argparse's own exit code for a bad command line


def _parser(prog: str = "python -m chaos") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    suite = verbs.add_parser(
        "run",
        help="run every experiment, layouts side by side, node faults alone",
        description=parallel.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parallel.add_arguments(suite)
    run = verbs.add_parser("check", help="check invariants over a history (JSONL)")
    run.add_argument("history", help="the history file written by the recorder")
    run.add_argument(
        "--deadline",
        type=float,
        metavar="S",
        help="seconds a workflow may take to reach a terminal phase "
        f"(default {InvariantSettings().deadline_seconds:g})",
    )
    run.add_argument(
        "--invariant",
        action="append",
        choices=list(INVARIANTS),
        metavar="NAME",
        help=f"check only this one (repeatable); one of: {', '.join(INVARIANTS)}",
    )
    run.add_argument("--format", choices=["yaml", "table"], default="table")
    return parser


def _write(text: str, *, error: bool = False) -> None:
    """The CLI's only output channel."""
    (sys.stderr if error else sys.stdout).write(text)


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str = "python -m chaos",
    run_suite: Callable[[argparse.Namespace], int] = parallel.run,
) -> int:
    """Run the CLI; returns the exit code.

    `run_suite` runs `run`: one run of the suite here; the `wpc` front end
    (also behind `python -m chaos`) passes its runner, which honours `--repeat`.
    """
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    args = _parser(prog).parse_args(argv)
    if args.verb == "run":
        return run_suite(args)
    settings = InvariantSettings()
    if args.deadline is not None:
        if args.deadline <= 0:
            _write(f"{prog} check: --deadline must be positive\n", error=True)
            return EXIT_BAD_INPUT
        settings = replace(settings, deadline_seconds=args.deadline)
    try:
        history = load_history(args.history)
    except HistoryError as exc:
        _write(f"{prog} check: bad history: {exc}\n", error=True)
        return EXIT_BAD_INPUT
    names = args.invariant or list(INVARIANTS)
    violations = check(history, settings, names)
    render = (
        violation_text.as_yaml if args.format == "yaml" else violation_text.as_table
    )
    _write(render(history.path, list(dict.fromkeys(names)), violations))
    return EXIT_VIOLATIONS if violations else EXIT_OK
