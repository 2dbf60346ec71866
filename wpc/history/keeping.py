"""`history run --keep-reports`: a tag whose report is already there is not run again.

A history run takes half an hour; one tag that broke (a build, a prepare step)
should not cost the others again, and a change to the judging rules should not
need the cluster at all. With `--keep-reports`, a tag run whose report is in the
output directory (`<out>/<build>/conformance.yaml`, and for experiments
`<out>/<build>/chaos/chaos-<profile>.yaml`) is read as it is; only the others run.
The result's wall time then covers only what ran.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.chaos_running import ChaosSuiteRunner
from wpc.qualify.running import Run
from wpc.qualify.running import Runner

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeptSuite:
    """Runs the suite only for a tag whose report is not already there."""

    runner: Runner

    def __call__(self, run: Run) -> Path:
        """The report already there, else the run's."""
        if run.report.is_file():
            logger.info("Kept %s (not run again: --keep-reports).", run.report)
            return run.report
        return self.runner(run)


@dataclass(frozen=True)
class KeptChaos:
    """Runs the chaos suite only for a tag whose ChaosReport is not already there."""

    runner: ChaosSuiteRunner

    def __call__(self, run: ChaosRun) -> Path:
        """The ChaosReport already there, else the run's."""
        report = self.runner.report(run)
        if report.is_file():
            logger.info("Kept %s (not run again: --keep-reports).", report)
            return report
        return self.runner(run)
