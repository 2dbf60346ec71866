"""`python -m tests.freshmachine [TARGET ...]`: the README on a bare Debian 12; exit as it did."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.freshmachine import runner


def main(argv: list[str] | None = None) -> int:
    """Run, print the steps, pytest's summaries and every skip; exit with the run's code."""
    parser = argparse.ArgumentParser(prog="python -m tests.freshmachine")
    parser.add_argument("targets", nargs="*", default=list(runner.DEFAULT_TARGETS))
    parser.add_argument(
        "--log", type=Path, default=Path("reports/fresh-debian/run.log")
    )
    args = parser.parse_args(argv)
    try:
        outcome = runner.run(tuple(args.targets), log_path=args.log)
    except runner.FreshMachineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    out.write(f"fresh Debian 12: exit {outcome.exit_code} in {outcome.seconds:.0f}s\n")
    for line in outcome.steps:
        out.write(f"  {line}\n")
    for line in outcome.pytest_summaries:
        out.write(f"  pytest: {line}\n")
    out.write(f"  skipped: {len(outcome.skipped)}\n")
    for line in outcome.skipped:
        out.write(f"    {line}\n")
    out.write(f"  log: {outcome.log_path}\n")
    return outcome.exit_code


if __name__ == "__main__":
    sys.exit(main())
