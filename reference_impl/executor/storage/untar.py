"""Extract a tar member by member without ever following a symbolic link.

Checking every member before extraction (what `tarfile` leaves to its caller
on Debian's Python 3.11.2, which has no extraction filters) cannot work: the
members `d1 -> .`, `d2 -> .`, `lnk -> d1/d2/../..` each stay inside the
destination while they do not exist yet, and once they do, `lnk/x` is written
two levels above it (issue 11). So nothing is checked against a tree that is not
there; every write is made relative to a directory descriptor reached from the
root one component at a time with O_NOFOLLOW:

- a member's name is taken lexically: absolute names and names that leave the
  root after normalisation are refused ("illegal file path", upstream's words in
  `untar`, workflow/executor/executor.go);
- a member whose parent path goes through a symbolic link is refused, even one
  inside the tree: the archive tried to write through a link;
- a regular file is created with O_EXCL|O_NOFOLLOW (a previous non-directory
  entry of that name is removed first, never opened), its permission bits
  without setuid, setgid or sticky, and its mtime;
- a symbolic link's target must be relative and stay inside the root when read
  lexically from the link's directory ("illegal symlink target", upstream's
  words); a hard link may only name a regular file this archive extracted;
- devices, FIFOs and other entry types are refused by name. Upstream's `untar`
  skips them, and hard links, without a word; refusing is the safe reading and
  keeps hard links, which `tarfile` always extracted here, working.

Once every member is written, `links.check_links` resolves every link of the
tree that will be kept and refuses one that leaves it (a chain only escapes once
all its links exist); directory modes are set last, so that a read-only
directory can still be filled and checked.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import stat
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reference_impl.executor.errors import ArtifactError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_PERMISSIONS = 0o777
"""Permission bits kept from an entry's mode: no setuid, setgid or sticky bit."""
_IMPLICIT_DIR_MODE = 0o755
"""Parents an archive does not list (upstream's MkdirAll mode)."""

_KINDS = {
    tarfile.CHRTYPE: "character device",
    tarfile.BLKTYPE: "block device",
    tarfile.FIFOTYPE: "FIFO",
}


@dataclass(frozen=True)
class Directory:
    """A directory entry whose mode and mtime are set once the tree is complete."""

    parts: tuple[str, ...]
    mode: int
    mtime: float


def extract(archive: Path, root: Path) -> list[Directory]:
    """Extract the gzipped tar `archive` into the existing directory `root`.

    Returns the directory entries, whose modes and times `finish_directories`
    sets once the caller has checked the tree.
    """
    directories: list[Directory] = []
    regular: set[tuple[str, ...]] = set()
    with (
        tarfile.open(archive, mode="r:gz") as tar,
        _opened(os.open(root, _DIR_FLAGS)) as root_fd,
    ):
        for member in tar:
            _member(tar, member, root_fd, directories, regular)
    return directories


def finish_directories(root: Path, directories: list[Directory]) -> None:
    """Give each directory entry its mode and mtime, deepest first."""
    with _opened(os.open(root, _DIR_FLAGS)) as root_fd:
        for entry in sorted(directories, key=lambda d: d.parts, reverse=True):
            name = "/".join(entry.parts)
            with _opened(_walk(root_fd, entry.parts, name=name, create=False)) as fd:
                os.utime(fd, (entry.mtime, entry.mtime))
                os.chmod(fd, entry.mode)


def _member(
    tar: tarfile.TarFile,
    member: tarfile.TarInfo,
    root_fd: int,
    directories: list[Directory],
    regular: set[tuple[str, ...]],
) -> None:
    name = member.name
    parts = _parts(name, what="file path", name=name)
    if member.isdir():
        if parts:
            _directory(root_fd, parts, name)
            mode = member.mode & _PERMISSIONS
            directories.append(Directory(parts, mode, member.mtime))
            regular.discard(parts)
        return
    if not parts:
        raise ArtifactError(f"illegal file path: {name}")
    if member.isreg():
        _file(tar, member, root_fd, parts)
        regular.add(parts)
    elif member.issym():
        _symlink(member, root_fd, parts)
        regular.discard(parts)
    elif member.islnk():
        _hardlink(member, root_fd, parts, regular)
        regular.add(parts)
    else:
        kind = _KINDS.get(member.type, f"type {member.type!r}")
        raise ArtifactError(f"cannot unpack {kind} entry {name}: not supported")


def _parts(path: str, *, what: str, name: str) -> tuple[str, ...]:
    """`path` as components inside the root (() is the root itself)."""
    norm = posixpath.normpath(path) if path else "."
    if posixpath.isabs(path) or norm == ".." or norm.startswith("../"):
        shown = name if what == "file path" else f"{name} -> {path}"
        raise ArtifactError(f"illegal {what}: {shown}")
    return () if norm == "." else tuple(norm.split("/"))


def _file(
    tar: tarfile.TarFile, member: tarfile.TarInfo, root_fd: int, parts: tuple[str, ...]
) -> None:
    source = tar.extractfile(member)
    if source is None:
        raise ArtifactError(f"cannot read {member.name} from the archive")
    with _opened(_walk(root_fd, parts[:-1], name=member.name, create=True)) as parent:
        _clear(parent, parts[-1], member.name)
        fd = os.open(parts[-1], _FILE_FLAGS, 0o600, dir_fd=parent)
        with source, os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(source, out)
            out.flush()
            os.chmod(out.fileno(), member.mode & _PERMISSIONS)
            os.utime(out.fileno(), (member.mtime, member.mtime))


def _directory(root_fd: int, parts: tuple[str, ...], name: str) -> None:
    with _opened(_walk(root_fd, parts[:-1], name=name, create=True)) as parent:
        try:
            os.mkdir(parts[-1], 0o700, dir_fd=parent)
        except FileExistsError:
            # A real directory of that name is reused; a link or a file is refused.
            os.close(
                _open_child(parent, parts[-1], name=name, shown=name, create=False)
            )


def _symlink(member: tarfile.TarInfo, root_fd: int, parts: tuple[str, ...]) -> None:
    target = member.linkname
    where = posixpath.join(*parts[:-1]) if len(parts) > 1 else ""
    lexical = posixpath.normpath(posixpath.join(where, target)) if target else ".."
    if posixpath.isabs(target) or lexical == ".." or lexical.startswith("../"):
        raise ArtifactError(f"illegal symlink target: {member.name} -> {target}")
    with _opened(_walk(root_fd, parts[:-1], name=member.name, create=True)) as parent:
        _clear(parent, parts[-1], member.name)
        os.symlink(target, parts[-1], dir_fd=parent)


def _hardlink(
    member: tarfile.TarInfo,
    root_fd: int,
    parts: tuple[str, ...],
    regular: set[tuple[str, ...]],
) -> None:
    name, target = member.name, member.linkname
    source = _parts(target, what="hard link target", name=name)
    if source not in regular:
        raise ArtifactError(
            f"illegal hard link target: {name} -> {target}"
            " (not a regular file extracted earlier from this archive)"
        )
    if source == parts:
        return
    with (
        _opened(_walk(root_fd, source[:-1], name=name, create=False)) as src_dir,
        _opened(_walk(root_fd, parts[:-1], name=name, create=True)) as parent,
    ):
        found = os.stat(source[-1], dir_fd=src_dir, follow_symlinks=False)
        if not stat.S_ISREG(found.st_mode):
            raise ArtifactError(f"illegal hard link target: {name} -> {target}")
        _clear(parent, parts[-1], name)
        os.link(
            source[-1],
            parts[-1],
            src_dir_fd=src_dir,
            dst_dir_fd=parent,
            follow_symlinks=False,
        )


def _clear(parent: int, base: str, name: str) -> None:
    """Remove an earlier non-directory entry `base` (a later member replaces it)."""
    try:
        found = os.stat(base, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(found.st_mode):
        raise ArtifactError(f"cannot unpack {name}: a directory of that name exists")
    os.unlink(base, dir_fd=parent)


def _walk(root_fd: int, parts: tuple[str, ...], *, name: str, create: bool) -> int:
    """A descriptor of the directory `parts` under the root, reached without links."""
    fd = os.dup(root_fd)
    try:
        for depth, part in enumerate(parts, start=1):
            shown = "/".join(parts[:depth])
            child = _open_child(fd, part, name=name, shown=shown, create=create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(dir_fd: int, part: str, *, name: str, shown: str, create: bool) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise ArtifactError(
                f"cannot unpack {name}: {shown} does not exist"
            ) from None
        os.mkdir(part, _IMPLICIT_DIR_MODE, dir_fd=dir_fd)
        return os.open(part, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as err:
        found = os.stat(part, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISLNK(found.st_mode):
            raise ArtifactError(
                f"illegal file path: {name} goes through the symbolic link {shown}"
            ) from None
        raise ArtifactError(f"cannot unpack {name}: {shown}: {err.strerror}") from None


@contextlib.contextmanager
def _opened(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)
