"""What must be on the shared volumes before main runs (init, or the supervisor).

`init` (legacy) does all of it and also copies the executor binary; the
supervisor (init-less) does the same minus the copy, since mains run argoexec
from the read-only /argo-bin image volume instead. Input artifacts are in
`loading`.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

from reference_impl import commission
from reference_impl.executor.files import commissioned
from reference_impl.executor.launching import BUNDLE_SUFFIX
from reference_impl.executor.protocol import Paths
from reference_impl.executor.templates import Template

logger = logging.getLogger(__name__)

EXECUTOR_MODE = 0o555
TEMPLATE_MODE = 0o444
SCRIPT_MODE = 0o755


def copy_executor(*, binary: Path, paths: Paths) -> None:
    """Copy the launcher to /var/run/argo/argoexec (0555) and its bundle beside it.

    Each whole or not at all; the bundle first, so that a launcher in place
    always finds its bundle. A launcher without a bundle (tests) is copied alone.
    """
    dest = paths.executor_copy
    bundle = binary.with_name(binary.name + BUNDLE_SUFFIX)
    if bundle.is_dir():
        dest_bundle = dest.with_name(dest.name + BUNDLE_SUFFIX)
        tmp_bundle = dest_bundle.with_name(dest_bundle.name + ".tmp")
        shutil.rmtree(tmp_bundle, ignore_errors=True)
        shutil.copytree(bundle, tmp_bundle, symlinks=True)
        shutil.rmtree(dest_bundle, ignore_errors=True)  # a retried init's
        os.replace(tmp_bundle, dest_bundle)
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.copyfile(binary, tmp)
    os.chmod(tmp, EXECUTOR_MODE)
    os.replace(tmp, dest)
    logger.info("Copied the executor %s to %s.", binary, dest)


def write_template(
    *,
    template: Template,
    paths: Paths,
    fault: commission.Fault | None = None,
    container: str = "",
) -> None:
    """Write the template JSON to /var/run/argo/template (0444), whole or not at all.

    `fault`: a fault of commission whose `files` hook gives it another mode.
    """
    dest = paths.template
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.write_text(json.dumps(template.raw))
    os.chmod(tmp, TEMPLATE_MODE)
    commissioned.set_mode(fault, "template", tmp, container=container)
    os.replace(tmp, dest)


def stage_files(*, template: Template, paths: Paths) -> None:
    """Stage the script source (0755) or the resource manifest, if the template has one."""
    if template.script_source is not None:
        logger.info("Staging the script source at %s.", paths.script)
        _write(paths.script, template.script_source, SCRIPT_MODE)
    elif template.resource_manifest is not None:
        logger.info("Staging the resource manifest at %s.", paths.resource_manifest)
        _write(paths.resource_manifest, template.resource_manifest, 0o644)


def _write(path: Path, text: str, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)
