r"""`argoexec supervisor`: the init-less aux container (contract 2.3).

    1. write RUNNING at once (also replaces a stale marker), then every 5 s;
    2. with umask 0: write the template, stage files, load input artifacts;
    3. stop the heartbeat, then write READY, or FAILED\n<error> (also when the
       READY write itself fails);
    4. do wait's job (`postmain`); after a pre-main failure skip the outputs
       but still report and finalize.
The supervisor's own exit code is 64 on any error, with the first error as its
termination message; main's emissary independently exits 65.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from reference_impl import commission
from reference_impl import common
from reference_impl.executor import templates
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.faults import Fault
from reference_impl.executor.files import exits
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.staging import loading
from reference_impl.executor.staging import premain
from reference_impl.executor.staging.heartbeats import Heartbeat
from reference_impl.executor.staging.postmain import AuxInputs
from reference_impl.executor.staging.postmain import Outcome
from reference_impl.executor.staging.postmain import run_post_main
from reference_impl.executor.storage import stores

logger = logging.getLogger(__name__)


class _Marker:
    """Writes the status marker, atomically unless the `no-atomic-write` fault is on."""

    def __init__(
        self, *, paths: Paths, atomic: bool, fault: commission.Fault | None = None
    ) -> None:
        self._paths = paths
        self._atomic = atomic
        self._fault = fault
        """A fault of commission whose `messages` hook rewrites the body."""

    def write(self, token: str, message: str = "") -> None:
        body = markers.encode(token, message).decode()
        markers.write_status(
            path=self._paths.status,
            tmp_path=self._paths.status_tmp,
            body=commission.rewrite_text(self._fault, "marker", body).encode(),
            atomic=self._atomic,
        )


def run_supervisor(aux: AuxInputs) -> int:
    """Prepare main, signal READY/FAILED, then collect and report; return the exit code."""
    settings, paths = aux.settings, aux.paths
    outcome = Outcome()
    marker = _Marker(
        paths=paths,
        atomic=settings.fault is not Fault.NO_ATOMIC_WRITE,
        fault=settings.commission,
    )
    heartbeat = Heartbeat(
        beat=lambda: marker.write(markers.RUNNING),
        clock=aux.clock,
        interval=settings.timings.heartbeat,
    )
    template = templates.Template(raw={})
    pre_main_failed = True
    try:
        marker.write(markers.RUNNING)
    except OSError as err:
        outcome.add(ExecutorError(f"failed to write initial status marker: {err}"))
    else:
        heartbeat.start()
        template, failure = _pre_main(
            settings=settings, paths=paths, stores_for=aux.stores_for
        )
        pre_main_failed = failure is not None
        if settings.fault is Fault.NEVER_READY:
            logger.warning(
                "Fault %s: never writing READY; heartbeating on.",
                Fault.NEVER_READY.value,
            )
        else:
            heartbeat.stop()
            failure = _final_marker(marker, failure)
            pre_main_failed = failure is not None
        if failure is not None:
            outcome.add(failure)
    try:
        run_post_main(
            aux, template=template, pre_main_failed=pre_main_failed, outcome=outcome
        )
    finally:
        heartbeat.stop()
    if outcome.errors:
        return exits.finish(
            paths=paths, error=outcome.errors[0], fault=settings.commission
        )
    return 0


def _pre_main(
    *, settings: ExecutorSettings, paths: Paths, stores_for: stores.StoreFactory
) -> tuple[templates.Template, ExecutorError | None]:
    try:
        template = templates.from_env_value(settings.template_env, paths=paths)
    except ExecutorError as err:
        return templates.Template(raw={}), ExecutorError(
            f"failed to write template: {err}"
        )
    old_umask = os.umask(0)  # as upstream: main may run as any user
    try:
        steps: tuple[tuple[str, Callable[[], None]], ...] = (
            (
                "failed to write template",
                lambda: premain.write_template(
                    template=template,
                    paths=paths,
                    fault=settings.commission,
                    container=settings.container_name,
                ),
            ),
            (
                "failed to stage files",
                lambda: premain.stage_files(template=template, paths=paths),
            ),
            (
                "failed to load non-plugin input artifacts",
                lambda: loading.load_all(
                    template=template,
                    paths=paths,
                    stores_for=stores_for,
                    fault=settings.commission,
                    container=settings.container_name,
                ),
            ),
        )
        for what, step in steps:
            try:
                step()
            except (ExecutorError, OSError) as err:
                return template, ExecutorError(f"{what}: {err}")
    finally:
        os.umask(old_umask)
    return template, None


def _final_marker(
    marker: _Marker, failure: ExecutorError | None
) -> ExecutorError | None:
    if failure is None:
        try:
            marker.write(markers.READY)
            logger.info(
                "Pre-main work done; wrote %s to %s.",
                markers.READY,
                common.STATUS_MARKER,
            )
            return None
        except OSError as err:
            failure = ExecutorError(f"failed to write ready status marker: {err}")
    try:
        marker.write(markers.FAILED, str(failure))
    except OSError as err:
        logger.error("Cannot even write FAILED to the status marker: %s.", err)
    return failure
