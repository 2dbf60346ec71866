"""`argoexec wait`: the legacy aux container (contract 1.5, section 6).

It reads the template init wrote, then does everything in `postmain`. Any
error exits 64 with the first error as the termination message, which the
controller reports as `wait: Error (exit code 64): <message>`.
"""

from __future__ import annotations

import logging

from reference_impl.executor import templates
from reference_impl.executor.api import taskresults
from reference_impl.executor.clocks import Clock
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.files import exits
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.staging.postmain import Outcome
from reference_impl.executor.staging.postmain import run_post_main
from reference_impl.executor.storage import stores

logger = logging.getLogger(__name__)


def run_wait(
    *,
    settings: ExecutorSettings,
    paths: Paths,
    clock: Clock,
    reporter: taskresults.Reporter,
    stores_for: stores.StoreFactory,
) -> int:
    """Wait for main, report its outputs; return the process exit code."""
    outcome = Outcome()
    try:
        template = templates.load(paths=paths, env_value=settings.template_env)
    except ExecutorError as err:
        outcome.add(err)
        template = templates.Template(raw={})
    run_post_main(
        settings=settings,
        template=template,
        paths=paths,
        reporter=reporter,
        stores_for=stores_for,
        clock=clock,
        pre_main_failed=bool(outcome.errors),
        outcome=outcome,
    )
    if outcome.errors:
        return exits.finish(paths=paths, error=outcome.errors[0])
    return 0
