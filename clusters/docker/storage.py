"""Refuse an engine whose images would sit where no kind node can run.

dockerd picks the first storage driver that mounts on its data root and falls
back to `vfs` when none does (the data root on an overlay file system, say a
container's own root). Such an engine still starts, loads images and runs
the node containers, but every node's /var (a volume on the same file system)
is no place for the node's containerd either: its overlayfs snapshotter fails,
no static pod starts, and kind create dies minutes later on "connection
refused" from an apiserver that never ran. So `vfs` is refused at once, with
the file system and dockerd's own words on why overlay did not mount.
"""

from __future__ import annotations

from pathlib import Path

from clusters.docker import cli
from clusters.docker.settings import DockerSettings
from clusters.errors import ProviderError
from plumbing import commands

UNUSABLE = frozenset({"vfs"})
"""Drivers dockerd falls back to when nothing else mounts on its data root."""
EVIDENCE_LINES = 5


def driver(s: DockerSettings) -> str:
    """The storage driver our running dockerd chose."""
    return cli.capture(s, "info", "--format", "{{.Driver}}").strip()


def file_system(path: Path) -> str:
    """The file system type holding `path` (nearest existing ancestor), e.g. ext4."""
    while not path.exists() and path != path.parent:
        path = path.parent
    done = commands.attempt(["stat", "--file-system", "--format", "%T", str(path)])
    return done.stdout.strip() or f"unknown ({done.stderr.strip()})"


def refusal(s: DockerSettings, chosen: str) -> str | None:
    """Why the engine cannot serve kind with `chosen`, or None when it can."""
    if chosen not in UNUSABLE:
        return None
    data_root = s.state_root / "data"
    log = s.log_dir / "dockerd.log"
    said = _driver_lines(log)
    return (
        f"our dockerd fell back to the {chosen!r} storage driver: no overlay file "
        f"system mounts on its data root {data_root} (file system "
        f"{file_system(data_root)}), and kind's nodes keep their containers on the "
        "same file system, where their containerd cannot mount overlay either. Put "
        f"{s.state_root} on ext4 or xfs (WPC_DOCKER_DIR moves it).\n"
        f"dockerd log: {log}\n"
        + ("\n".join(said) if said else "(no storage-driver line)")
    )


def _driver_lines(log: Path) -> list[str]:
    try:
        text = log.read_text(errors="replace")
    except OSError as exc:
        return [f"(could not read {log}: {exc.strerror})"]
    lines = [line for line in text.splitlines() if "storage-driver" in line]
    return lines[-EVIDENCE_LINES:]


def ensure_usable(s: DockerSettings) -> None:
    """Raise ProviderError, with evidence, when our dockerd cannot serve kind nodes."""
    why = refusal(s, driver(s))
    if why is not None:
        raise ProviderError(why)
