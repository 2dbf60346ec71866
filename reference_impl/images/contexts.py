"""Build contexts for the three reference images: Dockerfile + rootfs, keyed by inputs.

Each context is `<out>/<image>-<key>/` holding `Dockerfile` (copied from this
package) and `rootfs/`, which the Dockerfile copies to `/`. The key hashes the
Dockerfile and every file put into the rootfs; a context whose `.complete` stamp
exists is reused as it stands. The directory is assembled next to its final
name and renamed into place, so a half-written context never looks complete.
Other contexts of the same image are left alone (another worktree's, perhaps).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from plumbing import commands
from reference_impl import common
from reference_impl.images import bundling
from reference_impl.images import freezing
from reference_impl.images.errors import BuildError
from reference_impl.images.settings import PackagingSettings

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STAMP = ".complete"


@dataclass(frozen=True)
class RootFile:
    """One entry of a rootfs: a file copied in, a symlink, or an empty directory."""

    path: str
    """Absolute path in the image, e.g. `/bin/argoexec`."""
    source: Path | None = None
    link: str | None = None
    mode: int = 0o755


def _digest(dockerfile: Path, entries: list[RootFile]) -> str:
    digest = hashlib.sha256(dockerfile.read_bytes())
    for entry in sorted(entries, key=lambda e: e.path):
        digest.update(f"{entry.path}|{entry.link}|{entry.mode:o}".encode())
        if entry.source is not None:
            digest.update(entry.source.read_bytes())
    return digest.hexdigest()[:16]


def assemble(
    *, name: str, dockerfile: Path, entries: list[RootFile], out: Path
) -> Path:
    """Return the context directory for these inputs, creating it if needed."""
    context = out / f"{name}-{_digest(dockerfile, entries)}"
    if (context / STAMP).exists():
        logger.info("Reusing the %s context %s.", name, context)
        return context
    # Per process: another worktree may be assembling the same context right now.
    tmp = context.with_name(f"{context.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    rootfs = tmp / "rootfs"
    rootfs.mkdir(parents=True)
    shutil.copyfile(dockerfile, tmp / "Dockerfile")
    for entry in entries:
        target = rootfs / entry.path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.link is not None:
            target.symlink_to(entry.link)
            continue
        if entry.source is None:
            target.mkdir(exist_ok=True)
        else:
            shutil.copyfile(entry.source, target)
        os.chmod(target, entry.mode)
    (tmp / STAMP).touch()
    if (context / STAMP).exists():  # the other one finished first: identical
        shutil.rmtree(tmp)
        return context
    shutil.rmtree(context, ignore_errors=True)
    tmp.rename(context)
    # Other contexts of the image stay: keyed by content, they may be the current
    # ones of another worktree building in parallel.
    logger.info("Prepared the %s context %s.", name, context)
    return context


def executor(*, settings: PackagingSettings, out: Path) -> Path:
    """The argoexec image: /bin/argoexec, its bundle beside it, and a /tmp."""
    launcher = bundling.build(settings=settings)
    bundle = launcher.with_name(launcher.name + bundling.BUNDLE_SUFFIX)
    entries = [
        RootFile("/bin/argoexec", source=launcher),
        RootFile("/tmp", mode=0o1777),
    ]
    for path in sorted(bundle.rglob("*")):
        if path.is_file():
            target = f"/bin/{bundle.name}/{path.relative_to(bundle).as_posix()}"
            entries.append(
                RootFile(target, source=path, mode=path.stat().st_mode & 0o755)
            )
    return assemble(
        name="executor",
        dockerfile=HERE / "executor" / "Dockerfile",
        entries=entries,
        out=out,
    )


def controller(*, settings: PackagingSettings, out: Path) -> Path:
    """The controller image: /bin/workflow-controller (its /tmp is an emptyDir)."""
    binary = freezing.freeze(program=freezing.CONTROLLER, settings=settings)
    return assemble(
        name="controller",
        dockerfile=HERE / "controller" / "Dockerfile",
        entries=[
            RootFile("/bin/workflow-controller", source=binary),
            RootFile("/tmp", mode=0o1777),
        ],
        out=out,
    )


def busybox_applets(busybox: Path) -> list[str]:
    """Every applet the busybox binary was built with (`busybox --list`)."""
    listed = commands.capture([str(busybox), "--list"], error=BuildError)
    return sorted({a for a in listed.split() if a and a != "busybox"})


def testimage(*, settings: PackagingSettings, out: Path) -> Path:
    """The test image: /bin/busybox, a link per applet, and /tmp."""
    entries = [
        RootFile("/bin/busybox", source=settings.busybox),
        RootFile("/tmp", mode=0o1777),
    ]
    entries += [
        RootFile(f"/bin/{a}", link="busybox") for a in busybox_applets(settings.busybox)
    ]
    return assemble(
        name="testimage",
        dockerfile=HERE / "testimage" / "Dockerfile",
        entries=entries,
        out=out,
    )


PREPARERS: dict[str, tuple[str, Callable[..., Path]]] = {
    "executor": (common.EXECUTOR_IMAGE, executor),
    "controller": (common.CONTROLLER_IMAGE, controller),
    "testimage": (common.TEST_IMAGE, testimage),
}
"""Image name -> (image reference, context preparer)."""
