"""Init-less input staging in main: symlink each `<art.path>` to its downloaded copy.

Legacy pods mount each input artifact at its path with a `subPath`; init-less
pods mount the whole input-artifacts volume at /argo/inputs/artifacts instead,
and main's emissary links the paths after READY (contract 2.3). Something
already at the path (from the image) is replaced, unless replacing it would
delete into a declared volume mount, which is refused.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

from reference_impl import commission
from reference_impl.executor.errors import PreMainFailure
from reference_impl.executor.protocol import Paths
from reference_impl.executor.templates import Template


def _quoted(name: str) -> str:
    """Quote like Go's %q (double quotes), as argoexec's messages do."""
    return json.dumps(name)


logger = logging.getLogger(__name__)


def link_input_artifacts(
    *, template: Template, paths: Paths, fault: commission.Fault | None = None
) -> None:
    """Link every downloaded input artifact into place; PreMainFailure on failure.

    `fault`: a fault of commission whose `messages` hook rewrites a link's target.
    """
    for art in template.input_artifacts:
        src = paths.input_artifact(art.name)
        if not os.path.lexists(src):
            continue  # optional and unsupplied, or loaded through a user volume
        dst = paths.at(art.path)
        try:
            dst.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            if os.path.lexists(dst):
                _clear(template=template, paths=paths, name=art.name, dst=dst)
            os.symlink(commission.rewrite_text(fault, "link", str(src)), dst)
        except OSError as err:
            raise PreMainFailure(
                f"failed to symlink input artifact {_quoted(art.name)} ({dst} -> {src}): {err}"
            ) from None
        logger.info("Linked input artifact %s: %s -> %s.", art.name, dst, src)


def _clear(*, template: Template, paths: Paths, name: str, dst: Path) -> None:
    # Resolve the parent, not the path itself: a symlink *at* the path is just
    # unlinked, while a symlinked parent could lead the delete into a volume.
    resolved = Path(os.path.realpath(dst.parent)) / dst.name
    in_container = _in_container(paths, resolved)
    mount = template.overlapping_mount(in_container)
    if mount is not None:
        raise PreMainFailure(
            f"refusing to stage input artifact {_quoted(name)} at {dst}: it resolves to {in_container} "
            f"inside volume mount {_quoted(mount.name)} ({mount.mount_path})"
        )
    for mount in template.volume_mounts:
        if mount.mount_path.startswith(in_container.rstrip("/") + "/"):
            raise PreMainFailure(
                f"refusing to stage input artifact {_quoted(name)} at {dst}: it resolves to "
                f"{in_container} which contains volume mount {_quoted(mount.name)} ({mount.mount_path})"
            )
    if dst.is_dir() and not dst.is_symlink():
        shutil.rmtree(dst)
    else:
        dst.unlink()


def _in_container(paths: Paths, host_path: Path) -> str:
    try:
        rel = host_path.relative_to(paths.root.resolve()).as_posix()
    except ValueError:
        return str(host_path)
    return "/" if rel == "." else "/" + rel


def check_working_dir(workdir: str) -> None:
    """Fail with 65 if staging replaced the working directory with a non-directory."""
    if not os.path.isdir(workdir):
        raise PreMainFailure(
            f"failed to re-enter working directory {workdir}: not a directory"
        )
