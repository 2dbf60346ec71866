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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic
from typing import TypeVar

from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.running import Run

logger = logging.getLogger(__name__)

AnyRun = TypeVar("AnyRun", Run, ChaosRun)


@dataclass(frozen=True)
class Kept(Generic[AnyRun]):
    """Runs `runner` only for a run whose report (`report_of`) is not already there."""

    runner: Callable[[AnyRun], Path]
    report_of: Callable[[AnyRun], Path]

    def __call__(self, run: AnyRun) -> Path:
        """The report already there, else the run's."""
        report = self.report_of(run)
        if report.is_file():
            logger.info("Kept %s (not run again: --keep-reports).", report)
            return report
        return self.runner(run)
