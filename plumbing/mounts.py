"""Mount points a cluster left below its directories, and their removal.

A cluster's own mounts (overlay root file systems, volumes, network namespace
files) sit strictly *below* the directory it owns. The directory itself is
never one of them: where it is a mount point, someone else put it there (a
disk for /var/lib/wpc-docker, or a container's volume), and unmounting it
would silently move everything written afterwards onto the file system
underneath. That happened: a fresh Debian container with /var/lib/wpc-docker
as a volume lost the volume at the kind engine's first `down`, and the next
engine ran on the container's overlay, where no kind node could start.
"""

from __future__ import annotations

from pathlib import Path

from plumbing import commands

MOUNTINFO = Path("/proc/self/mountinfo")


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code, char in (
        ("\\040", " "),
        ("\\011", "\t"),
        ("\\012", "\n"),
        ("\\134", "\\"),
    ):
        field = field.replace(code, char)
    return field


def mounts_below(
    root: Path, *, fstype: str | None = None, mountinfo: str | None = None
) -> list[str]:
    """Mount points strictly below `root` (never `root` itself), deepest first.

    `fstype` keeps only mounts of that file system type (`nsfs`: network
    namespace files).
    """
    text = MOUNTINFO.read_text() if mountinfo is None else mountinfo
    prefix = str(root).rstrip("/") + "/"
    points = set()
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        # The file system type follows the "-" that ends the optional fields.
        kind = fields[fields.index("-") + 1]
        point = _unescape(fields[4])
        if point.startswith(prefix) and fstype in (None, kind):
            points.add(point)
    return sorted(points, key=lambda p: (p.count("/"), p), reverse=True)


def unmount_below(root: Path) -> None:
    """Lazily unmount every mount point strictly below `root`, deepest first."""
    for point in mounts_below(root):
        commands.attempt(["umount", "-l", point])
