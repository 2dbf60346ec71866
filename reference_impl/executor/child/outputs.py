"""Main's half of output collection, done by its emissary after the command exits.

Only main's own filesystem holds files outside user volumes, and only the
emissary runs there, so it copies them onto the shared volume for wait/
supervisor to pick up (contract 1.5 step 9):

    outputs.parameters[].valueFrom.path -> /var/run/argo/outputs/parameters/<path>
    outputs.artifacts[].path            -> /var/run/argo/outputs/artifacts/<path>.tgz

Paths on user volumes are skipped (wait reads them through /mainctrfs), and so
are missing ones (they may be optional; wait decides).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from reference_impl import commission
from reference_impl import common
from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.files import commissioned
from reference_impl.executor.protocol import Paths
from reference_impl.executor.storage import archives
from reference_impl.executor.templates import Template

logger = logging.getLogger(__name__)


def save_outputs(
    *, template: Template, paths: Paths, fault: commission.Fault | None = None
) -> None:
    """Copy main's output parameters and tar its output artifacts to the shared volume.

    `fault`: a fault of commission whose `files` hook rewrites a parameter's copy
    or the file an output artifact archives.
    """
    for param in template.output_parameters:
        _save_parameter(template=template, paths=paths, path=param.path)
        commissioned.rewrite(
            fault,
            "parameter",
            paths.output_parameter(param.path),
            container=common.MAIN,
        )
    for art in template.output_artifacts:
        _save_artifact(template=template, paths=paths, path=art.path, fault=fault)


def _save_parameter(*, template: Template, paths: Paths, path: str) -> None:
    if template.overlapping_mount(path) is not None:
        logger.info("No need to save parameter %s: it is on a volume mount.", path)
        return
    src = paths.at(path)
    if not src.exists():
        logger.warning("Cannot save parameter %s: it does not exist.", path)
        return
    dest = paths.output_parameter(path)
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    try:
        shutil.copyfile(src, dest)
    except OSError as err:
        raise ArtifactError(f"failed to save parameter {path}: {err}") from None
    logger.info("Saved parameter %s to %s.", path, dest)


def _save_artifact(
    *,
    template: Template,
    paths: Paths,
    path: str,
    fault: commission.Fault | None = None,
) -> None:
    if template.overlapping_mount(path) is not None:
        logger.info("No need to save artifact %s: it is on a volume mount.", path)
        return
    src = paths.at(path)
    if not os.path.lexists(src):
        logger.warning("Cannot save artifact %s: it does not exist.", path)
        return
    dest = paths.output_artifact(path)
    try:
        with _archived(src, dest, fault) as archived:
            archives.tar_gz(src=archived, dest=dest)
    except OSError as err:
        raise ArtifactError(
            f"failed to tarball the output {path} to {dest}: {err}"
        ) from None
    logger.info("Saved artifact %s to %s.", path, dest)


@contextlib.contextmanager
def _archived(src: Path, dest: Path, fault: commission.Fault | None) -> Iterator[Path]:
    """What to archive for `src`: itself, or a rewritten copy under a fault of commission.

    The copy (a `files` row for `output-artifact`, a regular file only) keeps the
    base name, so the archive's entry is the same, and sits beside the archive; it
    is removed afterwards and main's own file is left as it was.
    """
    if not src.is_file() or not commissioned.rewrites(
        fault, "output-artifact", container=common.MAIN
    ):
        yield src
        return
    scratch = dest.with_name(dest.name + ".rewritten")
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        copy = scratch / src.name
        shutil.copyfile(src, copy)
        commissioned.rewrite(fault, "output-artifact", copy, container=common.MAIN)
        yield copy
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
