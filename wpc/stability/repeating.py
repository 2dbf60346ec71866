"""`--repeat N`: a whole run N times back to back, then its items compared across runs.

`wpc run --repeat N` and `wpc chaos run --repeat N` (`make conformance REPEAT=N`,
`make chaos REPEAT=N`). Each repetition is the ordinary run, unchanged (for
the suite: `clusters up`, which finds the cluster running after the first,
the install, the suite, the reports), with its reports in a directory of its
own, `run-K-of-N/` below where the single run would write them, so every run
keeps its report, HTML, JUnit, logs and timelines. At the end the finished
runs' reports are compared (`comparing`) and the StabilityReport is written
beside where the single run's report would be, named `stability-<that name>`.

The repetition stops at a run that was interrupted (exit 2 or a report marked
`interrupted`; Ctrl-C between two runs likewise, and that KeyboardInterrupt goes
on to the caller, which handles it as it always has) or that left no report
to compare (any exit but 0 and 1, or no report written by this run); the runs
before it are compared, and the StabilityReport says where it stopped.

Exit status: the stopping run's, if one stopped it; else UNSTABLE (17) when an
item's outcome differs between runs; else the first non-zero status of a run
(1 when an item failed in every run); else 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from chaos.suite import parallel
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from wpc.run import launching
from wpc.stability import comparing
from wpc.stability import reading
from wpc.stability import rendering
from wpc.stability.rendering import Ran
from wpc.stability.rendering import Stopped

FINISHED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
"""A run's statuses that leave a whole report to compare."""
CLOCK_SLACK_SECONDS = 1.0
"""A report written by this run is at most this much older than its start (file
times have coarse resolution on some filesystems); an older one is left from before."""


def count_of(text: str) -> int:
    """`--repeat`'s value: a whole number of runs, 1 or more; DataError otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise DataError(
            f"--repeat: expected a whole number of runs, 1 or more; got {text!r}"
        )
    return value


def run_dir(base: Path, index: int, count: int) -> Path:
    """Where run `index` of `count` writes its reports: `BASE/run-2-of-3`."""
    return base / f"run-{index}-of-{count}"


def stability_path(report: Path) -> Path:
    """The StabilityReport beside the single run's `report`: `stability-<its name>`."""
    return report.with_name(f"stability-{report.name}")


def _stop(
    index: int, status: int, report: Path, run: reading.Run | None
) -> Stopped | None:
    """Why the repetition stops after run `index`, or None to go on."""
    if status == pytest.ExitCode.INTERRUPTED or (run is not None and run.interrupted):
        reason = (
            run.interrupted
            if run is not None and run.interrupted
            else "stopped by a signal"
        )
        return Stopped(run=index, status=status, reason=reason, interrupted=True)
    if status not in FINISHED:
        return Stopped(
            run=index,
            status=status,
            reason=f"the run ended with exit {status}, before its report was whole",
            interrupted=False,
        )
    if run is None:
        return Stopped(
            run=index,
            status=status or int(ExitCode.PREPARE_FAILED),
            reason=f"the run wrote no report at {report}",
            interrupted=False,
        )
    return None


def _finish(
    runs: Sequence[reading.Run], ran: Sequence[Ran], stopped: Stopped | None, path: Path
) -> int:
    """Compare, write the StabilityReport, print the table; the exit status."""
    stability = comparing.compare(runs) if runs else None
    path.parent.mkdir(parents=True, exist_ok=True)
    rendering.write(rendering.document(stability, ran, stopped), path)
    sys.stdout.write(rendering.table(stability, ran, stopped))
    sys.stdout.write(f"stability report: {path}\n")
    if stopped is not None:
        return stopped.status
    if stability is not None and stability.flips:
        return ExitCode.UNSTABLE
    return next((r.status for r in ran if r.status), 0)


def repeat(
    count: int,
    *,
    run: Callable[[int], int],
    report_of: Callable[[int], Path],
    stability: Path,
) -> int:
    """Run `run(1)` ... `run(count)` (each returns its exit status); compare their reports."""
    ran: list[Ran] = []
    finished: list[reading.Run] = []
    stopped = None
    for index in range(1, count + 1):
        report = report_of(index)
        started = time.time()
        try:
            status = int(run(index))
        except KeyboardInterrupt:
            ran.append(Ran(str(report), int(pytest.ExitCode.INTERRUPTED)))
            interrupted = Stopped(
                run=index,
                status=int(pytest.ExitCode.INTERRUPTED),
                reason="KeyboardInterrupt",
                interrupted=True,
            )
            _finish(finished, ran, interrupted, stability)
            raise
        ran.append(Ran(str(report), status))
        fresh = (
            report.is_file() and report.stat().st_mtime >= started - CLOCK_SLACK_SECONDS
        )
        found = reading.read(report) if fresh else None
        stopped = _stop(index, status, report, found)
        if stopped is not None:
            break
        assert found is not None
        finished.append(found)
    return _finish(finished, ran, stopped, stability)


def suite(request: launching.RunRequest, count: int) -> int:
    """`wpc run --repeat COUNT`: `launching.run` once per run, each in `run-K-of-N/`."""

    def nth(index: int) -> launching.RunRequest:
        options = dict(request.options)
        for dest in ("wpc_report", "wpc_junit"):
            given = options.get(dest)
            if given is not None:
                options[dest] = (
                    run_dir(Path(given).parent, index, count) / Path(given).name
                )
        return replace(
            request,
            options=options,
            reports_dir=run_dir(request.reports_dir, index, count),
        )

    return repeat(
        count,
        run=lambda index: launching.run(nth(index)),
        report_of=lambda index: launching.report_path(nth(index)),
        stability=stability_path(launching.report_path(request)),
    )


def chaos(args: argparse.Namespace) -> int:
    """`wpc chaos run`, once (`--repeat 1`, `--list`) or `--repeat N` times."""
    try:
        count = count_of(args.repeat)
    except DataError as exc:
        sys.stderr.write(f"wpc chaos run: {exc}\n")
        return ExitCode.INVALID_INPUT
    if count == 1 or args.list:
        return parallel.run(args)
    try:
        if args.report is not None:
            raise DataError(
                "--report names one report; with --repeat each run writes its own, "
                "under REPORTS/run-K-of-N/"
            )
        base = parallel.report_of(args.reports, os.environ)
    except (DataError, ValueError) as exc:  # ValueError: bad profile variables
        sys.stderr.write(f"wpc chaos run: {exc}\n")
        return ExitCode.INVALID_INPUT

    def report_of(index: int) -> Path:
        # Named after the profile like `base`: the profile is loaded once, not per run.
        return run_dir(args.reports, index, count) / base.name

    def nth(index: int) -> argparse.Namespace:
        reports = run_dir(args.reports, index, count)
        # Its --report is the one it writes, so its summary loads no profile either.
        return argparse.Namespace(
            **{
                **vars(args),
                "reports": reports,
                "report": report_of(index),
                "repeat": "1",
            }
        )

    def run(index: int) -> int:
        # The ChaosReport gathers entries run after run: one left in this
        # directory by an earlier repetition would add cases this one skipped.
        report_of(index).unlink(missing_ok=True)
        return parallel.run(nth(index))

    try:
        return repeat(
            count, run=run, report_of=report_of, stability=stability_path(base)
        )
    except DataError as exc:  # runs that cannot be compared (`comparing`)
        sys.stderr.write(f"wpc chaos run: {exc}\n")
        return ExitCode.INVALID_INPUT
