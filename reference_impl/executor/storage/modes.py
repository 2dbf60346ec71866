"""Apply an input artifact's `mode` (and `recurseMode`) without following a link.

Upstream's `chmod` (workflow/executor/executor.go) calls `os.Chmod` on the
artifact, then with `recurseMode` on every path `filepath.Walk` visits. The
walk does not descend into a linked directory, but it visits the link itself,
and `os.Chmod` follows it: the mode lands on the link's target, wherever that is
(issue 29: a sibling artifact's 0600 file became 0777).

Here a link is skipped: it has no mode of its own on Linux, and the links an
artifact may keep resolve inside it (`links.check_links`), where the walk
reaches their targets in their own turn, so a tree gets the same modes as
upstream gives it. Directories are entered by descriptor without following
links (`os.fwalk`), and each entry is changed with AT_SYMLINK_NOFOLLOW, so one
swapped for a link after the check is refused, never followed. Upstream fails
on a dangling link under `recurseMode` (`os.Chmod` finds no target); here it is
skipped (docs/known-deviations.md).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reference_impl.executor.errors import ArtifactError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def set_mode(path: Path, mode: int, *, recurse: bool) -> None:
    """Give `path`, and with `recurse` everything under it, the permission `mode`."""
    parent = os.open(path.parent, _DIR_FLAGS)
    try:
        if _is_link(parent, path.name, path):
            raise ArtifactError(f"cannot set the mode of {path}: it is a symbolic link")
        _chmod(parent, path.name, mode, path)
    finally:
        os.close(parent)
    if not (recurse and path.is_dir()):
        return
    # Top-down, the entries of a directory change before the walk opens them, so a
    # mode that makes a directory readable applies before its turn comes.
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(path):
        for name in dirnames + filenames:
            shown = Path(dirpath, name)
            if not _is_link(dir_fd, name, shown):
                _chmod(dir_fd, name, mode, shown)


def _is_link(dir_fd: int, name: str, shown: Path) -> bool:
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as err:
        raise ArtifactError(f"cannot set the mode of {shown}: {err.strerror}") from None
    return stat.S_ISLNK(found.st_mode)


def _chmod(dir_fd: int, name: str, mode: int, shown: Path) -> None:
    try:
        os.chmod(name, mode, dir_fd=dir_fd, follow_symlinks=False)
    except (ValueError, NotImplementedError):
        # Python's words when fchmodat refuses AT_SYMLINK_NOFOLLOW: the entry has
        # become a link since it was checked (or the C library cannot refuse one).
        raise ArtifactError(
            f"cannot set the mode of {shown} without following a symbolic link"
        ) from None
    except OSError as err:
        raise ArtifactError(f"cannot set the mode of {shown}: {err.strerror}") from None
