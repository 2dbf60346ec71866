"""`argoexec wait`: the legacy aux container (contract 1.5, section 6).

It reads the template init wrote, then does everything in `postmain`. Any
error exits 64 with the first error as the termination message, which the
controller reports as `wait: Error (exit code 64): <message>`.
"""

from __future__ import annotations

import logging

from reference_impl.executor import templates
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.files import exits
from reference_impl.executor.staging.postmain import AuxInputs
from reference_impl.executor.staging.postmain import Outcome
from reference_impl.executor.staging.postmain import run_post_main

logger = logging.getLogger(__name__)


def run_wait(aux: AuxInputs) -> int:
    """Wait for main, report its outputs; return the process exit code."""
    settings, paths = aux.settings, aux.paths
    outcome = Outcome()
    try:
        template = templates.load(paths=paths, env_value=settings.template_env)
    except ExecutorError as err:
        outcome.add(err)
        template = templates.Template(raw={})
    run_post_main(
        aux, template=template, pre_main_failed=bool(outcome.errors), outcome=outcome
    )
    if outcome.errors:
        return exits.finish(paths=paths, error=outcome.errors[0])
    return 0
