"""`argoexec init`: the legacy init container (contract 1.5).

Copy the executor binary to /var/run/argo/argoexec (0555), write the template,
stage the script or manifest, load input artifacts. Any failure exits 64 with
the error as the termination message, which the controller reports as
`init: Error (exit code 64): <message>`.
"""

from __future__ import annotations

import logging
import os

from reference_impl.executor import templates
from reference_impl.executor.errors import ConfigError
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.files import exits
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.staging import loading
from reference_impl.executor.staging import premain
from reference_impl.executor.storage import stores

logger = logging.getLogger(__name__)


def run_init(
    *, settings: ExecutorSettings, paths: Paths, stores_for: stores.StoreFactory
) -> int:
    """Prepare the pod's shared volumes for main; return the process exit code."""
    try:
        if settings.executor_binary is None:
            raise ConfigError(
                "cannot locate the argoexec executable to copy (not running the packaged binary)"
            )
        premain.copy_executor(binary=settings.executor_binary, paths=paths)
        template = templates.from_env_value(settings.template_env, paths=paths)
        old_umask = os.umask(0)  # files must be usable by main, whatever its user
        try:
            premain.write_template(
                template=template,
                paths=paths,
                fault=settings.commission,
                container=settings.container_name,
            )
            premain.stage_files(template=template, paths=paths)
            loading.load_all(
                template=template,
                paths=paths,
                stores_for=stores_for,
                fault=settings.commission,
                container=settings.container_name,
            )
        finally:
            os.umask(old_umask)
    except (ExecutorError, OSError) as err:
        return exits.finish(paths=paths, error=_as_executor_error(err))
    logger.info("Init completed.")
    return 0


def _as_executor_error(err: ExecutorError | OSError) -> ExecutorError:
    return err if isinstance(err, ExecutorError) else ExecutorError(str(err))
