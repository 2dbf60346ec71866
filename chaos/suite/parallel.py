"""`wpc chaos run` (`make chaos`): the layouts' experiments side by side, then the node faults alone.

Each layout has its own chaos controller instance, and an experiment's faults
stay within its namespace, its pod or its layout's controller, so the legacy
and init-less experiments can run at the same time, one pytest process per
layout, without feeling each other. An experiment tagged `node` (kubelet,
containerd or the API server restarted) hits everything on the node, so those
run afterwards in one process, one at a time. On two cores this brings the 30
cases from about 16 minutes in one queue to the longer layout's queue plus the
node faults.

Each process's output goes to `reports/chaos/pytest-<phase>.log`, and each line
is echoed with its phase as a prefix, so a CI log shows progress as it happens.
The exit status is the first non-zero status of a phase (a phase that selected
nothing counts as passed), after every phase has run: a failure in one layout
does not hide the others' verdicts.

    wpc chaos run [--layout both|legacy|initless] [--list] [--repeat N] [-- PYTEST_ARGS...]

`--repeat N` (`make chaos REPEAT=N`) runs all of it N times, each run under
`REPORTS/run-K-of-N/`, and compares the runs case by case (`wpc.stability`,
which the `wpc` front end hands to `chaos.cli` as the runner).

The pytest module is `chaos.suite.experiments`, run from where it is installed, so
an installed wheel runs the whole suite; reports go below the current directory.
The closing summary reads the ChaosReport the experiments wrote, named after
the profile's `name` (WPC_CHAOS_IMPLEMENTATION may be a path to a profile); a
profile that cannot be loaded stops the run at once with exit code 10.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import yaml

from chaos.suite import experimenting
from conformance.errors import DataError
from conformance.exitcodes import ExitCode
from conformance.harness.instances import layouts

TESTS = Path(__file__).with_name("experiments.py")
"""The suite's pytest module, given by path: its name need not match `test_*.py`."""
MARKERS = "chaos.suite.markers"
"""The plugin registering the suite's markers where no project config does (a wheel)."""
NO_TESTS_COLLECTED = 5
"""pytest's exit status when the selection is empty (a layout with no node faults)."""
INVALID_INPUT = 10
"""The exit status for a profile that cannot be loaded (the CLI's invalid input)."""


@dataclass(frozen=True)
class Phase:
    """One pytest process: its name, layout selection and marker expression."""

    name: str
    layout: str
    markers: str

    def command(self, reports: Path, extra: Sequence[str]) -> list[str]:
        """The pytest command line of this phase."""
        return [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            MARKERS,
            "-m",
            self.markers,
            str(TESTS),
            f"--junitxml={reports / f'chaos-pytest-{self.name}.junit.xml'}",
            "-p",
            "no:cacheprovider",
            "-v",
            *extra,
        ]


def plan(layout: str) -> tuple[list[Phase], list[Phase]]:
    """(phases run side by side, phases run after them, one at a time)."""
    selected = layouts.parse_selection(layout)
    side_by_side = [
        Phase(name, name, "chaos and not negative and not node_fault")
        for name in selected
    ]
    alone = [Phase("node", layout, "chaos and not negative and node_fault")]
    return side_by_side, alone


def _say(text: str) -> None:
    """The runner's own output, flushed at once (it interleaves with the pumps')."""
    sys.stdout.write(f"{text}\n")
    sys.stdout.flush()


def _pump(stream: IO[str], log: IO[str], prefix: str) -> None:
    """Copy a process's output to its log and, prefixed, to our stdout; then close the log."""
    with log:
        for line in stream:
            log.write(line)
            log.flush()
            sys.stdout.write(f"[{prefix}] {line}")
            sys.stdout.flush()


def start(
    phase: Phase, reports: Path, extra: Sequence[str]
) -> tuple[subprocess.Popen[str], threading.Thread, Path]:
    """Start `phase`'s pytest with its output pumped; returns it, its pump and log."""
    logs = reports / "chaos"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"pytest-{phase.name}.log"
    command = phase.command(reports, extra)
    _say(
        f"[{phase.name}] $ WPC_CHAOS_LAYOUT={phase.layout} "
        f"WPC_CHAOS_REPORTS_DIR={reports} {' '.join(command)}"
    )
    proc = subprocess.Popen(
        command,
        env={
            **os.environ,
            "WPC_CHAOS_LAYOUT": phase.layout,
            "WPC_CHAOS_REPORTS_DIR": str(reports),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    log = log_path.open("w", encoding="utf-8")
    pump = threading.Thread(
        target=_pump, args=(proc.stdout, log, phase.name), daemon=True
    )
    pump.start()
    return proc, pump, log_path


def finish(
    phase: Phase, proc: subprocess.Popen[str], pump: threading.Thread, log: Path
) -> int:
    """Wait for `phase`'s process and its output; its status (no tests: 0)."""
    status = proc.wait()
    pump.join()
    if status == NO_TESTS_COLLECTED:
        return 0
    if status:
        _say(f"[{phase.name}] pytest exited {status}; its whole output: {log}")
    return status


def run_phases(
    phases: Sequence[Phase], reports: Path, extra: Sequence[str]
) -> list[int]:
    """Run `phases` at the same time; their statuses in order."""
    started = [(phase, *start(phase, reports, extra)) for phase in phases]
    return [finish(phase, proc, pump, log) for phase, proc, pump, log in started]


def summary(report: Path) -> list[str]:
    """One line per experiment of the ChaosReport at `report`, and its HTML page."""
    if not report.exists():
        return [f"no chaos report at {report}"]
    loaded = yaml.safe_load(report.read_text(encoding="utf-8")) or {}
    lines = [f"{'experiment':<52} {'layout':<9} {'outcome':<21} {'duration':>9}"]
    for entry in loaded.get("experiments") or []:
        lines.append(
            f"{entry['name']:<52} {entry['layout']:<9} {entry['outcome']:<21} "
            f"{entry['durationSeconds']:>7.1f} s"
        )
    counts = ", ".join(f"{k} {v}" for k, v in (loaded.get("summary") or {}).items())
    lines += [
        counts,
        f"report: {report}; with timeline links: {report.with_suffix('.html')}",
    ]
    return lines


def report_of(reports: Path, environ: Mapping[str, str]) -> Path:
    """The ChaosReport the experiments write: `chaos-<the profile's name>.yaml`.

    Not `chaos-<WPC_CHAOS_IMPLEMENTATION>`: that may be a path to the profile.
    DataError or ValueError when the profile or its variables are invalid.
    """
    from chaos.lifecycle import instances
    from chaos.lifecycle import judging
    from chaos.settings import ChaosSettings
    from chaos.settings import parse_vars

    settings = ChaosSettings(
        implementation=environ.get("WPC_CHAOS_IMPLEMENTATION") or "reference",
        profile_vars=parse_vars(environ.get("WPC_CHAOS_PROFILE_VARS", "")),
    )
    return judging.report_path(reports, instances.load_profile(settings).name)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `wpc chaos run`."""
    layouts.add_argument(parser)
    parser.add_argument("--reports", type=Path, default=experimenting.REPORTS_DIR)
    parser.add_argument(
        "--report",
        type=Path,
        help="the ChaosReport to summarise at the end (default: the profile's)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the experiments each phase would run, and run nothing (no cluster)",
    )
    parser.add_argument(
        "--repeat",
        default="1",
        metavar="N",
        help="run the suite N times back to back, each run's reports under "
        "REPORTS/run-K-of-N/, then compare the runs case by case: "
        "REPORTS/stability-chaos-<implementation>.yaml lists the cases whose outcome "
        f"flipped (exit {int(ExitCode.UNSTABLE)})",
    )
    parser.add_argument("pytest_args", nargs="*", help="passed to every pytest process")


def listing(layout: str) -> list[str]:
    """What `plan(layout)` runs: a line per case (phase, layout, experiment), a count."""
    selected = layouts.parse_selection(layout)
    cases = experimenting.cases(selected)
    lines = [f"{'phase':<9} {'layout':<9} experiment"]
    lines += [
        f"{'node' if experimenting.hits_the_node(path) else lay:<9} {lay:<9} {path.stem}"
        for path, lay in sorted(cases, key=lambda c: experimenting.hits_the_node(c[0]))
    ]
    experiments = len({path for path, _ in cases})
    return [*lines, f"{experiments} experiments, {len(cases)} cases"]


def run(args: argparse.Namespace) -> int:
    """Run (or with --list, list) the chaos suite; the first failing phase's status."""
    if args.list:
        _say("\n".join(listing(args.layout)))
        return 0
    try:
        report = args.report or report_of(args.reports, os.environ)
    except (DataError, ValueError) as exc:
        sys.stderr.write(f"wpc chaos run: {exc}\n")
        return INVALID_INPUT
    side_by_side, alone = plan(args.layout)
    statuses = run_phases(side_by_side, args.reports, args.pytest_args)
    for phase in alone:
        statuses += run_phases([phase], args.reports, args.pytest_args)
    _say("\n".join(summary(report)))
    return next((s for s in statuses if s), 0)
