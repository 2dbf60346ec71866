"""Tar.gz in and out, with Argo's rules for what lands where.

Output: main tars `outputs.artifacts[].path` into one .tgz whose single top
entry is the path's base name (upstream `archive.TarGzToWriter`).

Input: a downloaded file that is a gzipped tar (and the artifact does not say
`archive: none`) is unpacked; if it holds exactly one top entry, that entry
becomes the artifact, otherwise the directory of entries does (upstream
`unpack`). Entries escaping the destination are refused: `untar` extracts
member by member without following links (issue 11, tar-slip), and no link of
the kept tree may step outside it, judged where the tree will be once renamed
(`links`, issue 29).
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import tarfile
from pathlib import Path

from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.storage import links
from reference_impl.executor.storage import untar

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
    except (tarfile.TarError, OSError, EOFError, ValueError, OverflowError) as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise ArtifactError(f"failed to unpack {archive}: {err}") from None
    entries = os.listdir(staging)
    if len(entries) == 1:
        (staging / entries[0]).rename(dest)
        staging.rmdir()
    else:
        staging.rename(dest)


def _extract(archive: Path, staging: Path) -> None:
    directories = untar.extract(archive, staging)
    entries = os.listdir(staging)
    # The single-entry rule keeps only that entry, so its links must stay in it.
    kept = staging / entries[0] if len(entries) == 1 else staging
    links.check_links(staging, kept)
    untar.finish_directories(staging, directories)
