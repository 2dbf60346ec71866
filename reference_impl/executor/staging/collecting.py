"""Wait/supervisor's half of output collection: turn main's files into outputs.

- script result: `ctr/main/stdout`, one trailing newline trimmed, last 256 KiB;
- parameters: `outputs/parameters/<path>` (or /mainctrfs/<path> on a user
  volume), else `valueFrom.default`, else an error; one trailing newline trimmed;
- artifacts: `outputs/artifacts/<path>.tgz` (or a fresh tar of /mainctrfs/<path>)
  uploaded to `<archiveLocation key>/<name>.tgz` through the `ObjectStore`.
All as upstream `CaptureScriptResult`, `SaveParameters`, `SaveArtifacts`.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from reference_impl import common
from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.protocol import Paths
from reference_impl.executor.storage import archives
from reference_impl.executor.storage import stores
from reference_impl.executor.templates import Artifact
from reference_impl.executor.templates import Template

logger = logging.getLogger(__name__)

MAX_RESULT_BYTES = 256 * 1024


def script_result(*, paths: Paths) -> str:
    """Main's captured stdout as the `result` output."""
    try:
        data = paths.stdout(common.MAIN).read_bytes()
    except OSError as err:
        raise ArtifactError(f"failed to read the script output: {err}") from None
    if data.endswith(b"\n"):
        data = data[:-1]
    if len(data) > MAX_RESULT_BYTES:
        logger.warning("Output is larger than 256 kB; only the last 256 kB were saved.")
        data = data[-MAX_RESULT_BYTES:]
    return data.decode(errors="replace")


def parameters(
    *, template: Template, paths: Paths
) -> tuple[list[dict[str, Any]], ArtifactError | None]:
    """The template's output parameters with their `value` filled in, and the error met.

    As upstream `SaveParameters` (workflow/executor/executor.go): the first file that
    cannot be read and has no `valueFrom.default` stops it, with the read's own error;
    the parameters from there on keep no value, and all of them are still reported
    (`ReportOutputs` sends the template's outputs), so the node lists them without one.
    """
    params = [dict(p) for p in template.raw.get("outputs", {}).get("parameters") or []]
    by_name = {p.name: p for p in template.output_parameters}
    for param in params:
        spec = by_name.get(param.get("name", ""))
        if spec is None:
            continue
        source = paths.output_parameter(spec.path)
        if template.overlapping_mount(spec.path) is not None:
            source = paths.main_fs(spec.path)
        try:
            value = source.read_text()
        except OSError as err:
            if spec.default is None:
                return params, ArtifactError(_go_read_error(err, source))
            value = spec.default
        param["value"] = value.removesuffix("\n")
    return params, None


def _go_read_error(err: OSError, path: Path) -> str:
    """Word a failed read as Go's `os.ReadFile` does: `open <path>: <errno text>`.

    Opening a directory succeeds in Go and the read fails (`read <path>: is a
    directory`); Go's errno texts are Python's `strerror` in lower case.
    """
    op = "read" if isinstance(err, IsADirectoryError) else "open"
    text = (err.strerror or str(err)).lower()
    return f"{op} {os.path.normpath(path)}: {text}"


def artifacts(
    *, template: Template, paths: Paths, stores_for: stores.StoreFactory
) -> list[dict[str, Any]]:
    """Upload main's output artifacts; return them as reported (with their keys)."""
    saved: list[dict[str, Any]] = []
    errors: list[str] = []
    for art in template.output_artifacts:
        try:
            reported = _save(
                art=art, template=template, paths=paths, stores_for=stores_for
            )
        except stores.ArtifactNotFound as err:
            if art.optional:
                logger.warning("Ignoring optional artifact %s: %s.", art.name, err)
                continue
            errors.append(str(err))
        except ArtifactError as err:
            errors.append(str(err))
        else:
            saved.append(reported)
    if errors:
        raise ArtifactError("; ".join(errors) + "; ")
    return saved


def _save(
    *, art: Artifact, template: Template, paths: Paths, stores_for: stores.StoreFactory
) -> dict[str, Any]:
    if art.archive != "tar":
        raise ArtifactError(
            f"artifact {art.name}: archive strategy {art.archive!r} is not supported by the reference executor"
        )
    local = _staged(art=art, template=template, paths=paths)
    file_name = f"{art.name}.tgz"
    location = stores.s3_location(
        artifact=art.raw, archive_location=template.archive_location
    )
    if location is None or not location.get("key"):
        archive_s3 = template.archive_location.get("s3")
        if not archive_s3 or not archive_s3.get("key"):
            raise ArtifactError(stores.NO_REPOSITORY)
        location = {
            **archive_s3,
            "key": f"{str(archive_s3['key']).rstrip('/')}/{file_name}",
        }
    stores_for(location).upload(
        bucket=str(location.get("bucket", "")), key=str(location["key"]), src=local
    )
    logger.info(
        "Saved artifact %s as s3://%s/%s.",
        art.name,
        location.get("bucket"),
        location["key"],
    )
    return {**art.raw, "s3": location}


def _staged(*, art: Artifact, template: Template, paths: Paths) -> Path:
    if template.overlapping_mount(art.path) is not None:
        src = paths.main_fs(art.path)
        if not src.exists():
            raise stores.ArtifactNotFound(f"{art.path} no such file or directory")
        local = paths.tmp_output_artifacts / f"{art.name}.tgz"
        archives.tar_gz(src=src, dest=local)
        return local
    tgz = paths.output_artifact(art.path)
    if not tgz.exists():
        raise stores.ArtifactNotFound(f"{art.path} no such file or directory")
    local = paths.tmp_output_artifacts / f"{art.name}.tgz"
    local.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tgz, local)
    return local
