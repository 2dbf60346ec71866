"""Run the chaos suite against one build: `python -m chaos run` as a subprocess.

The chaos half of a qualification (and of a history fix named by an
experiment) runs exactly what `make chaos` runs, pointed at the build through
the chaos suite's environment (`WPC_CHAOS_IMPLEMENTATION`,
`WPC_CHAOS_PROFILE_VARS` with the build's variables, so its chaos controller
instances are `wpc-chaos-q-<slug>-<layout>` and never the other build's), with
its reports in a directory of its own. As `make chaos` does, the cluster is
brought up first (`python -m clusters up`, which keeps a running one): a
history tag whose fixes name only experiments runs no suite that would.

The chaos suite's exit code is not an error (failed experiments are what is
compared); a run that leaves no ChaosReport is, naming its command and code.
The report is `chaos-<the profile's name>.yaml` in the run's directory, as the
experiments name it.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import shlex
import sys
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Protocol

from conformance.errors import CommandError
from conformance.implementations import profiles
from wpc.qualify import running

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChaosRun(running.BuildRun):
    """One chaos run to make: a build, its layouts, an optional selection, where."""


class ChaosRunner(Protocol):
    """Runs the chaos suite for one `ChaosRun`; returns its ChaosReport's path."""

    def __call__(self, run: ChaosRun) -> Path:
        """Run, then return the report; CommandError when the run left none."""
        ...


def runner_from_args(args: argparse.Namespace) -> ChaosSuiteRunner:
    """The `ChaosSuiteRunner` that `--implementation`, `--provider` and `--cluster` ask for."""
    return ChaosSuiteRunner(
        implementation=args.implementation, provider=args.provider, cluster=args.cluster
    )


def selection(names: set[str]) -> str:
    """The `-k` expression selecting experiments by name, in a stable order.

    A case's id is `<experiment file's stem>-<layout>`, and every shipped
    document's stem is its report name (tests/chaos checks it); `-k` matches
    by substring, so an extra case is only time: reruns read by exact name.
    """
    return " or ".join(sorted(names))


@dataclass(frozen=True)
class ChaosSuiteRunner:
    """The real runner: `python -m chaos run` with the build's profile variables."""

    implementation: str
    provider: str = "local"
    cluster: str = "wpc"
    python: str = field(default=sys.executable)

    @functools.cached_property
    def profile_name(self) -> str:
        """The profile's name, loaded once: every build's is the same.

        The verbs have checked each build's variables (`builds.check_profile`).
        """
        return profiles.load(self.implementation).name

    def report(self, run: ChaosRun) -> Path:
        """Where the run's ChaosReport lands: named after the profile, not its path."""
        return run.reports_dir / f"chaos-{self.profile_name}.yaml"

    def environment(self, run: ChaosRun) -> dict[str, str]:
        """The chaos suite's variables for this build (docs/environment-variables.md)."""
        variables = run.build.variables()
        return {
            "WPC_CHAOS_IMPLEMENTATION": self.implementation,
            "WPC_CHAOS_PROFILE_VARS": ",".join(
                f"{name}={variables[name]}" for name in sorted(variables)
            ),
            "WPC_CHAOS_PROVIDER": self.provider,
            "WPC_CHAOS_CLUSTER": self.cluster,
        }

    def commands(self, run: ChaosRun) -> list[list[str]]:
        """The cluster brought up, then the chaos suite: the argv of each."""
        chaos = [
            self.python,
            "-m",
            "chaos",
            "run",
            "--layout",
            run.layout,
            "--reports",
            str(run.reports_dir),
        ]
        if run.keywords:
            chaos += ["--", "-k", run.keywords]
        up = [
            self.python,
            "-m",
            "clusters",
            "up",
            "--provider",
            self.provider,
            "--name",
            self.cluster,
        ]
        return [up, chaos]

    def __call__(self, run: ChaosRun) -> Path:
        """Bring the cluster up, run the chaos suite; return its report."""
        report = self.report(run)
        run.reports_dir.mkdir(parents=True, exist_ok=True)
        if report.exists():
            report.unlink()  # never read a previous run's report as this one's
        up, chaos = self.commands(run)
        logger.info("Running %s.", shlex.join(up))
        returncode = running._call(up)
        if returncode:
            raise CommandError(
                command=up,
                returncode=returncode,
                output="the cluster for the chaos suite did not come up (see above)",
            )
        environment = self.environment(run)
        logger.info(
            "Running %s %s.",
            " ".join(f"{k}={shlex.quote(v)}" for k, v in environment.items()),
            shlex.join(chaos),
        )
        returncode = running._call(chaos, env={**os.environ, **environment})
        if not report.is_file():
            raise CommandError(
                command=chaos,
                returncode=returncode,
                output=f"the chaos run left no report at {report} (see its output above)",
            )
        return report
