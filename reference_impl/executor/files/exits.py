"""Turning an executor error into what the kubelet and the controller see.

One place: the message goes to /dev/termination-log (the container's
`terminated.message`, which the controller copies into the node message) and
the exit code comes from the error's class (`errors`).
"""

from __future__ import annotations

import logging

from reference_impl import commission
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.protocol import Paths

logger = logging.getLogger(__name__)


def write_termination_message(
    *, paths: Paths, message: str, fault: commission.Fault | None = None
) -> None:
    """Write the termination message, if the kubelet provided the file.

    The kubelet mounts it in every container; elsewhere (a developer's machine)
    creating /dev/termination-log would only leave litter, so it is logged.
    `fault`: a fault of commission whose `messages` hook rewrites it.
    """
    message = commission.rewrite_text(fault, "termination", message)
    if not paths.termination_log.exists():
        logger.info("No %s; termination message: %s", paths.termination_log, message)
        return
    try:
        paths.termination_log.write_text(message)
    except OSError as err:
        logger.warning("Cannot write the termination message (%s): %s", err, message)


def finish(
    *, paths: Paths, error: ExecutorError, fault: commission.Fault | None = None
) -> int:
    """Report `error` and return the exit code its class stands for."""
    logger.error("%s", error)
    write_termination_message(paths=paths, message=str(error), fault=fault)
    return error.exit_code
