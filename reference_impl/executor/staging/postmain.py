"""Wait's job, and the supervisor's after READY: wait for main, then report its outputs.

Order (upstream `wait.go`/`postmain.go`): create the task result (empty), start
the deadline monitor, wait for every main container's exitcode file, capture
the script result, save parameters and artifacts, report the outputs; then,
whatever happened, kill artifact-plugin sidecars and set the task result's
`report-outputs-completed` label to "true". Errors are collected, not raised:
the first one becomes the termination message and the process exits 64.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from reference_impl.executor.api import taskresults
from reference_impl.executor.clocks import Clock
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.files import exits
from reference_impl.executor.files import killing
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.staging import collecting
from reference_impl.executor.staging import misreporting
from reference_impl.executor.staging.deadlines import DeadlineMonitor
from reference_impl.executor.storage import stores
from reference_impl.executor.templates import Template

logger = logging.getLogger(__name__)


@dataclass
class Outcome:
    """Errors met along the way (the first is the termination message)."""

    errors: list[ExecutorError] = field(default_factory=list)

    def add(self, err: ExecutorError) -> None:
        """Record an error and carry on."""
        logger.error("Executor error: %s", err)
        self.errors.append(err)


@dataclass(frozen=True)
class AuxInputs:
    """What the aux container's command (`wait`, or the supervisor) runs with.

    The CLI builds it once; the command's own work and `run_post_main` read it.
    """

    settings: ExecutorSettings
    paths: Paths
    clock: Clock
    reporter: taskresults.Reporter
    stores_for: stores.StoreFactory


def run_post_main(
    aux: AuxInputs, *, template: Template, pre_main_failed: bool, outcome: Outcome
) -> None:
    """Everything wait does; errors land in `outcome`."""
    settings, paths, clock = aux.settings, aux.paths, aux.clock
    reporter, stores_for = aux.reporter, aux.stores_for
    mains = template.main_container_names
    try:
        reporter.upsert({})
    except ExecutorError as err:
        outcome.add(err)
    monitor = DeadlineMonitor(
        deadline=settings.deadline,
        clock=clock,
        on_deadline=lambda message: _deadline_reached(
            message, settings=settings, paths=paths, mains=mains, clock=clock
        ),
    )
    monitor.start()
    try:
        killing.wait_until_exited(
            paths=paths, containers=mains, clock=clock, poll=settings.timings.file_poll
        )
        monitor.stop()
        logger.info("Main containers %s completed.", mains)
        if not pre_main_failed:
            _report_outputs(
                settings=settings,
                template=template,
                paths=paths,
                reporter=reporter,
                stores_for=stores_for,
                outcome=outcome,
            )
    finally:
        monitor.stop()
        killing.kill_containers(
            paths=paths,
            containers=list(settings.artifact_plugin_names),
            grace=settings.grace_seconds,
            clock=clock,
            poll=settings.timings.file_poll,
        )
        try:
            reporter.finalize()
        except ExecutorError as err:
            outcome.add(err)
        faulty = misreporting.after_finalize(
            settings=settings, paths=paths, mains=mains, reporter=reporter
        )
        if faulty is not None:
            outcome.add(faulty)


def _report_outputs(
    *,
    settings: ExecutorSettings,
    template: Template,
    paths: Paths,
    reporter: taskresults.Reporter,
    stores_for: stores.StoreFactory,
    outcome: Outcome,
) -> None:
    outputs: dict[str, Any] = {}
    if settings.include_script_output:
        try:
            outputs["result"] = collecting.script_result(paths=paths)
        except ExecutorError as err:
            outcome.add(err)
    params, params_error = collecting.parameters(template=template, paths=paths)
    if params_error is not None:
        outcome.add(params_error)
    if params:
        outputs["parameters"] = params
    try:
        arts = collecting.artifacts(
            template=template, paths=paths, stores_for=stores_for
        )
        if arts:
            outputs["artifacts"] = arts
    except ExecutorError as err:
        outcome.add(err)
    try:
        reporter.upsert({"outputs": outputs})
    except ExecutorError as err:
        outcome.add(err)


def _deadline_reached(
    message: str,
    *,
    settings: ExecutorSettings,
    paths: Paths,
    mains: list[str],
    clock: Clock,
) -> None:
    exits.write_termination_message(paths=paths, message=message)
    killing.kill_containers(
        paths=paths,
        containers=mains,
        grace=settings.grace_seconds,
        clock=clock,
        poll=settings.timings.file_poll,
    )
