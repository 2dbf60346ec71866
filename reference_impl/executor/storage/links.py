"""Refuse an unpacked tree whose symbolic links would leave it once it is in place.

The tree is checked in the staging directory but used somewhere else: `unpack`
renames the kept tree (the staging directory, or its single entry) to the
artifact's path. Resolving a link where it is now is therefore the wrong test:
`secret/k -> ../secret/key` resolves inside the kept entry `secret` while it is
staged, and once `secret` is renamed to `art` the same link names `secret/key`
beside the artifact (issue 29; `recurseMode` then changed that file's mode).

So each link is resolved inside the kept tree only, one component at a time, as
the kernel would: a `..` above the kept tree's top refuses the link, whatever
follows it, because everything above the top is replaced by the rename. Links
met on the way are followed (their targets are read from the staged tree);
components that do not exist are taken lexically. This is stricter than
resolving at the final path only for links that leave the tree and come back in
through the artifact's own name, which no archive can know.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reference_impl.executor.errors import ArtifactError

MAX_LINKS_FOLLOWED = 40
"""Linux's limit on links followed in one path lookup (ELOOP beyond it)."""


def check_links(root: Path, kept: Path) -> None:
    """Refuse the tree `kept` (`root` or its only entry) if a link in it leaves it.

    Names in messages are the members' names, relative to `root`.
    """
    if kept.is_symlink():
        # It would be renamed to the artifact's path, where its relative target
        # names something beside the artifact.
        raise ArtifactError(
            f"illegal symlink target: {kept.name} -> {os.readlink(kept)}"
        )
    if not kept.is_dir():
        return

    def refuse(err: OSError) -> None:
        raise ArtifactError(f"cannot check the unpacked tree: {err}")

    for dirpath, dirnames, filenames in os.walk(kept, onerror=refuse):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink() and _leaves(kept, path.relative_to(kept).parts):
                shown = os.path.relpath(path, root)
                raise ArtifactError(
                    f"illegal symlink target: {shown} -> {os.readlink(path)}"
                    " resolves outside the destination"
                )


def _leaves(top: Path, link: tuple[str, ...]) -> bool:
    """Whether resolving the link `top/<link>` steps above `top` at any point."""
    at = list(link[:-1])
    target = os.readlink(top.joinpath(*link))
    pending = list(reversed(target.split("/")))
    followed = 0
    if target.startswith("/"):
        return True
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not at:
                return True
            at.pop()
            continue
        path = top.joinpath(*at, part)
        try:
            mode = os.stat(path, follow_symlinks=False).st_mode
        except (FileNotFoundError, NotADirectoryError):
            at.append(part)  # nothing there: the rest is read lexically
            continue
        except OSError as err:
            raise ArtifactError(f"cannot check the unpacked tree: {err}") from None
        if not stat.S_ISLNK(mode):
            at.append(part)
            continue
        followed += 1
        if followed > MAX_LINKS_FOLLOWED:
            return False  # a loop: the lookup fails with ELOOP, it names nothing
        inner = os.readlink(path)
        if inner.startswith("/"):
            return True
        pending.extend(reversed(inner.split("/")))
    return False
