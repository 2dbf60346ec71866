"""We test the packaged argoexec end to end, as a container would run it (slow: builds it).

A private mount namespace stands in for a container of a user image: the root
is the test image (Debian's static busybox, nothing else; even /tmp removed)
mounted read-only, /proc, an emptyDir-like tmpfs at /var/run/argo, and the
executor image read-only at /argo-bin, as the init-less image volume. With
TMPDIR=/var/run/argo (what the controller sets), `/argo-bin/bin/argoexec
emissary -- /bin/echo hi` must print `hi`, exit 0, write the exitcode file,
hand the child exactly the container's environment, and leave nothing behind
but the protocol's files (the bundle runs where it lies; nothing is unpacked).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl.images import contexts
from reference_impl.images.settings import PackagingSettings

CONTAINER = r"""
set -e -f
EXE=$1; TI=$2; R=$3; EXTRA=$4; PRE=$5; shift 5
mount -t tmpfs none "$R"
cp -a "$TI"/rootfs/. "$R"/
rmdir "$R/tmp"
mkdir -p "$R/proc" "$R/var/run/argo" "$R/argo-bin" "$R/dev"
mount -t proc proc "$R/proc"
mount -t tmpfs none "$R/var/run/argo"
mount --bind "$EXE/rootfs" "$R/argo-bin"
mount -o remount,bind,ro "$R/argo-bin"
touch "$R/dev/termination-log"
mount -o remount,ro "$R"
A="$R/var/run/argo"
eval "$PRE"
set +e
chroot "$R" /bin/env -i PATH=/bin TMPDIR=/var/run/argo WPC_EXECUTOR_TMPDIR=/var/run/argo \
  ARGO_TEMPLATE='{}' USER_VAR=kept $EXTRA "$@"
echo "rc=$?"
set +f
echo "exitcode=$(cat "$A"/ctr/*/exitcode)"
echo "leftovers=$(ls -A "$A" | tr '\n' ' ')"
"""


def in_container(
    tmp_path: Path, *argv: str, extra: str = "ARGO_CONTAINER_NAME=main", pre: str = ""
) -> str:
    settings = PackagingSettings.from_env()
    exe = contexts.executor(settings=settings, out=tmp_path / "contexts")
    testimage = contexts.testimage(settings=settings, out=tmp_path / "contexts")
    root = tmp_path / "root"
    root.mkdir()
    script = tmp_path / "container.sh"
    script.write_text(CONTAINER)
    result = subprocess.run(
        ["unshare", "--mount", "--pid", "--fork", "--propagation", "private", "sh", str(script),
         str(exe), str(testimage), str(root), extra, pre, *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="needs root and unshare",
)
def test_emissary_runs_from_a_read_only_volume_in_a_busybox_only_image(tmp_path):
    out = in_container(
        tmp_path, "/argo-bin/bin/argoexec", "emissary", "--", "/bin/echo", "hi"
    )
    assert out.splitlines()[0] == "hi"
    assert "rc=0" in out
    assert "exitcode=0" in out
    assert "leftovers=ctr \n" in out + "\n"


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="needs root and unshare",
)
def test_the_child_sees_only_the_containers_environment(tmp_path):
    out = in_container(tmp_path, "/argo-bin/bin/argoexec", "emissary", "--", "/bin/env")
    env = {line.split("=", 1)[0] for line in out.splitlines() if "=" in line}
    assert {"PATH", "USER_VAR", "ARGO_CONTAINER_NAME"} <= env
    # LC_CTYPE: the bundle's interpreter coerces the C locale (PEP 538) by setting it.
    leaked = {"TMPDIR", "WPC_EXECUTOR_TMPDIR", "LD_LIBRARY_PATH", "LC_CTYPE"} | {
        k for k in env if k.startswith(("STATICX_", "_PYI_", "PYTHON"))
    }
    assert not (env & leaked)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="needs root and unshare",
)
def test_a_sidecar_kills_itself_after_main_without_aborting(tmp_path):
    """Regression: a thread alive at exit made glibc dlopen libgcc_s and abort (exit 134)."""
    extra = (
        'ARGO_CONTAINER_NAME=sc ARGO_TEMPLATE={"sidecars":[{"name":"sc"}]} '
        "ARGO_TERMINATION_GRACE_PERIOD_SECONDS=2"
    )
    pre = 'mkdir -p "$A/ctr/main" && echo 0 > "$A/ctr/main/exitcode"'
    for attempt in range(5):
        root = tmp_path / str(attempt)
        root.mkdir()
        out = in_container(
            root,
            "/argo-bin/bin/argoexec",
            "emissary",
            "--",
            "/bin/sleep",
            "100",
            extra=extra,
            pre=pre,
        )
        assert "rc=143" in out, out  # it signals itself with SIGTERM: 128 + 15
