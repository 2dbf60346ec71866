"""Tar.gz in and out, with Argo's rules for what lands where.

Output: main tars `outputs.artifacts[].path` into one .tgz whose single top
entry is the path's base name (upstream `archive.TarGzToWriter`).

Input: a downloaded file that is a gzipped tar (and the artifact does not say
`archive: none`) is unpacked; if it holds exactly one top entry, that entry
becomes the artifact, otherwise the directory of entries does (upstream
`unpack`). Entries escaping the destination are refused.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import tarfile
from pathlib import Path

from reference_impl.executor.errors import ArtifactError

logger = logging.getLogger(__name__)

COMPRESSION_LEVEL = 6
"""Go's gzip.DefaultCompression."""


def tar_gz(*, src: Path, dest: Path) -> None:
    """Write `src` (file or directory) to `dest` as tar.gz, named by its base name."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    with (
        gzip.GzipFile(tmp, mode="wb", compresslevel=COMPRESSION_LEVEL, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        tar.add(src, arcname=src.name)
    tmp.replace(dest)


def is_tar_gz(path: Path) -> bool:
    """Whether `path` is a gzipped tar with at least one entry (upstream isTarball)."""
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            return tar.next() is not None
    except (tarfile.TarError, OSError, EOFError):
        return False


def unpack(*, archive: Path, dest: Path) -> None:
    """Unpack a tar.gz to `dest` following Argo's single-entry rule."""
    staging = dest.with_name(dest.name + ".tmpdir")
    staging.mkdir(parents=True, exist_ok=True)
    try:
        _extract(archive, staging)
    except ArtifactError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except (tarfile.TarError, OSError) as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise ArtifactError(f"failed to unpack {archive}: {err}") from None
    entries = os.listdir(staging)
    if len(entries) == 1:
        (staging / entries[0]).rename(dest)
        staging.rmdir()
    else:
        staging.rename(dest)


def _extract(archive: Path, staging: Path) -> None:
    with tarfile.open(archive, mode="r:gz") as tar:
        members = [_checked(m, staging) for m in tar.getmembers()]
        if hasattr(tarfile, "data_filter"):
            # Already checked; newer Pythons only want to be told so.
            tar.extractall(staging, members=members, filter="fully_trusted")
        else:
            tar.extractall(staging, members=members)


def _checked(member: tarfile.TarInfo, dest: Path) -> tarfile.TarInfo:
    # Upstream refuses entries and symlink targets that leave the destination.
    # The binary is built with Debian's Python 3.11.2, which predates
    # tarfile's extraction filters, so the check is done here.
    root = os.path.realpath(dest)
    target = os.path.realpath(os.path.join(root, member.name))
    if os.path.commonpath([root, target]) != root:
        raise ArtifactError(f"illegal file path: {member.name}")
    if member.issym() or member.islnk():
        base = root if member.islnk() else os.path.dirname(target)
        link = os.path.realpath(os.path.join(base, member.linkname))
        if os.path.commonpath([root, link]) != root:
            raise ArtifactError(
                f"illegal symlink target: {member.name} -> {member.linkname}"
            )
    return member
