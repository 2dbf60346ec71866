"""Run the suite against one build: `python -m conformance run` as a subprocess.

A subprocess, not the launcher in process: each run is exactly the command a
person would type (it is logged, and the report's `reproduce` line shows it),
its pytest session is fresh, and the qualification survives a run that dies.
The suite's exit code is not an error here (failed items are what is being
compared); a run that leaves no report is, naming its command and exit code.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Protocol
from typing import runtime_checkable

from conformance.errors import CommandError
from conformance.harness.cluster.timeouts import checked_scale
from plumbing import errors
from wpc.qualify.builds import Build
from wpc.qualify.builds import profile_var_args

logger = logging.getLogger(__name__)


def add_suite_arguments(parser: argparse.ArgumentParser) -> None:
    """Where and how each suite run goes: the options `SuiteRunner.from_args` reads.

    One definition for every verb that runs the suite per build (`qualify`,
    `history run`), so they take the same flags with the same defaults.
    """
    parser.add_argument("--provider", default="local")
    parser.add_argument("--cluster", "--cluster-name", default="wpc")
    parser.add_argument(
        "-n", "--workers", type=int, default=0, help="pytest-xdist workers"
    )
    parser.add_argument("--timeout-scale", type=float, default=1.0)


def runner_from_args(args: argparse.Namespace) -> SuiteRunner:
    """The `SuiteRunner` that `--implementation` and `add_suite_arguments`' options ask for."""
    return SuiteRunner(
        implementation=args.implementation,
        provider=args.provider,
        cluster=args.cluster,
        workers=args.workers,
        timeout_scale=checked_scale(args.timeout_scale, "--timeout-scale"),
    )


REPORT_NAME = "conformance.yaml"
"""Each run's ConformanceReport, inside its own reports directory."""


@dataclass(frozen=True)
class BuildRun:
    """One run of a build to make: its layouts, an optional selection, where it writes.

    The fields the suite's `Run` and the chaos suite's `chaos_running.ChaosRun`
    share; each runner takes only its own kind.
    """

    build: Build
    layout: str
    """legacy, initless or both."""
    reports_dir: Path
    keywords: str = ""
    """A pytest `-k` expression over the run's item ids (the suite's tests, or the
    chaos cases' `<experiment>-<layout>`), or '' for all of them."""


@dataclass(frozen=True)
class Run(BuildRun):
    """One suite run to make: a build, its layouts, an optional selection and shard."""

    shard: str = ""
    """`I/N`: only that shard of the selection (`run --shard`), or '' for all of it."""

    @property
    def report(self) -> Path:
        """Where this run's ConformanceReport lands."""
        return self.reports_dir / REPORT_NAME


class Runner(Protocol):
    """Runs the suite for one `Run`; returns the report's path (it exists)."""

    def __call__(self, run: Run) -> Path:
        """Run, then return `run.report`; CommandError when the run left no report."""
        ...


@runtime_checkable
class SideBySide(Protocol):
    """A runner that can also run several `Run`s at once (`wpc qualify`'s two builds).

    Runs on one cluster can overlap: each build has its own controller instances
    (`instance_prefix`), scenarios that must not overlap take a host-wide lock,
    and a run's prepare step holds one too (`locking.PREPARE`).
    """

    def together(self, runs: Sequence[Run]) -> list[Path]:
        """Run all of `runs` at once; their reports, in order (CommandError: one left none)."""
        ...


CONSOLE_LOG = "console.log"
"""A run's console output when it runs beside another, inside its reports directory."""


@dataclass(frozen=True)
class SuiteRunner:
    """The real runner: `python -m conformance run` with the build's profile variables."""

    implementation: str
    provider: str = "local"
    cluster: str = "wpc"
    workers: int = 0
    timeout_scale: float = 1.0
    python: str = field(default=sys.executable)

    def command(self, run: Run) -> list[str]:
        """The argv of one run."""
        argv = [
            self.python,
            "-m",
            "conformance",
            "run",
            "--implementation",
            self.implementation,
            "--layout",
            run.layout,
            "--provider",
            self.provider,
            "--cluster",
            self.cluster,
            "--reports-dir",
            str(run.reports_dir),
            "--report",
            str(run.report),
            *profile_var_args(run.build.variables()),
        ]
        if self.timeout_scale != 1.0:
            argv += ["--timeout-scale", str(self.timeout_scale)]
        if self.workers:
            argv += ["-n", str(self.workers)]
        if run.shard:
            argv += ["--shard", run.shard]
        if run.keywords:
            argv += ["--", "-k", run.keywords]
        return argv

    def __call__(self, run: Run) -> Path:
        """Run the suite (its output goes to the console); return the report."""
        command = self.command(run)
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        if run.report.exists():
            run.report.unlink()  # never read a previous run's report as this one's
        logger.info("Running %s.", shlex.join(command))
        returncode = _call(command)
        if not run.report.is_file():
            raise CommandError(
                command=command,
                returncode=returncode,
                output=f"the run left no report at {run.report} (see its output above)",
            )
        return run.report

    def together(self, runs: Sequence[Run]) -> list[Path]:
        """Run the suite for each of `runs` at once, each one's output in its console.log."""
        commands = [self.command(run) for run in runs]
        logs = [run.reports_dir / CONSOLE_LOG for run in runs]
        for run, command, log in zip(runs, commands, logs, strict=True):
            run.reports_dir.mkdir(parents=True, exist_ok=True)
            if run.report.exists():
                run.report.unlink()  # never read a previous run's report as this one's
            logger.info("Running %s (output: %s).", shlex.join(command), log)
        # Imported here, as in _call (pytest's assertion rewriting).
        from plumbing.forwarding import run_side_by_side

        statuses = run_side_by_side(commands, logs=logs)
        for run, command, log, status in zip(
            runs, commands, logs, statuses, strict=True
        ):
            if not run.report.is_file():
                raise CommandError(
                    command=command,
                    returncode=status,
                    output=f"the run left no report at {run.report}; the last lines "
                    f"of {log}:\n{errors.tail(log)}",
                )
        return [run.report for run in runs]


def _call(command: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    # Not plumbing.commands: the suite's live progress belongs on the console,
    # and its exit code (failed items) is not an error here. Not subprocess.run:
    # on Ctrl-C it killed the run's launcher 0.25 s later, before the run's
    # teardown and report; run_forwarding passes the signal on and waits.
    # Imported here, as in wpc.run.launching (pytest's assertion rewriting).
    from plumbing.forwarding import run_forwarding

    return run_forwarding(command, env=env)
