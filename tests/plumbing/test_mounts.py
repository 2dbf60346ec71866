"""Only mounts strictly below a cluster's directory are its own to remove."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plumbing import mounts

MOUNTINFO = "\n".join(
    [
        "22 1 8:1 / / rw - ext4 /dev/vda rw",
        "90 22 8:1 /host/dir /var/lib/wpc-docker rw - ext4 /dev/vda rw",
        "91 90 0:50 / /var/lib/wpc-docker/data/overlay2/abc/merged rw - overlay o rw",
        "92 90 0:4 net:[1] /var/lib/wpc-docker/exec/netns/x\\040y rw - nsfs nsfs rw",
        "93 22 0:51 / /var/lib/wpc-docker2/other rw - tmpfs t rw",
        "94 91 0:52 / /var/lib/wpc-docker/data rw - tmpfs t rw",
    ]
)


def test_the_directory_itself_and_its_namesakes_are_never_listed() -> None:
    found = mounts.mounts_below(Path("/var/lib/wpc-docker"), mountinfo=MOUNTINFO)
    assert found == [
        "/var/lib/wpc-docker/data/overlay2/abc/merged",
        "/var/lib/wpc-docker/exec/netns/x y",
        "/var/lib/wpc-docker/data",
    ]


def test_a_trailing_slash_changes_nothing() -> None:
    assert mounts.mounts_below(
        Path("/var/lib/wpc-docker/"), mountinfo=MOUNTINFO
    ) == mounts.mounts_below(Path("/var/lib/wpc-docker"), mountinfo=MOUNTINFO)


PROBE = """
import subprocess, sys
from pathlib import Path
from plumbing import mounts
root = Path(sys.argv[1])
(root / "inner").mkdir()
subprocess.run(["mount", "-t", "tmpfs", "outer", str(root)], check=True)
(root / "inner").mkdir()
(root / "kept").write_text("written before")
subprocess.run(["mount", "-t", "tmpfs", "inner", str(root / "inner")], check=True)
mounts.unmount_below(root)
print(sorted(mounts.mounts_below(root)), (root / "kept").exists())
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="mounting needs root and unshare (a private mount namespace)",
)
def test_unmount_below_keeps_a_mounted_directory_mounted(tmp_path: Path) -> None:
    """The case that broke kind in a container: the directory is a mount point."""
    done = subprocess.run(
        [
            *("unshare", "--mount", "--propagation", "private"),
            *(sys.executable, "-c", PROBE, str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # The inner mount is gone; the directory's own mount (and what is on it) stays.
    assert done.stdout.strip() == "[] True", done.stdout + done.stderr


def test_a_file_system_type_keeps_only_its_mounts() -> None:
    """Network namespace files (nsfs), as the local pod-traffic check looks for them."""
    found = mounts.mounts_below(
        Path("/var/lib/wpc-docker"), fstype="nsfs", mountinfo=MOUNTINFO
    )
    assert found == ["/var/lib/wpc-docker/exec/netns/x y"]
