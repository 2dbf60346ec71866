"""Images the cluster proofs use, built with clusters.images and cached by content."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from clusters import images
from clusters.building import BuildSettings

BUSYBOX = Path("/bin/busybox")
APPLETS = (
    "sh",
    "cat",
    "echo",
    "sleep",
    "ls",
    "wget",
    "nslookup",
    "kill",
    "test",
    "true",
)
PROBE_SRC = Path(__file__).resolve().parents[2] / "conformance" / "tools" / "probe"
TOOLBOX_TAG = "wpc.local/cluster-proofs/toolbox:1"
DATA_TAG = "wpc.local/cluster-proofs/data:1"
DATA_TEXT = "served from an image volume\n"


def _cache() -> Path:
    return BuildSettings.from_env().cache_dir / "cluster-proofs"


def _probe_binary() -> Path:
    digest = hashlib.sha256(
        b"".join(p.read_bytes() for p in sorted(PROBE_SRC.glob("*")))
    ).hexdigest()[:12]
    out = _cache() / f"probe-{digest}"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, CGO_ENABLED="0", GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
        subprocess.run(
            ["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(out), "."],
            cwd=PROBE_SRC,
            env=env,
            check=True,
        )
    return out


def toolbox_archive() -> Path:
    """busybox + our probe program, FROM scratch."""
    ctx = _cache() / "toolbox-context"
    shutil.rmtree(ctx, ignore_errors=True)
    (ctx / "rootfs" / "bin").mkdir(parents=True)
    shutil.copy2(BUSYBOX, ctx / "rootfs" / "bin" / "busybox")
    for applet in APPLETS:
        (ctx / "rootfs" / "bin" / applet).symlink_to("busybox")
    shutil.copy2(_probe_binary(), ctx / "rootfs" / "bin" / "probe")
    (ctx / "Dockerfile").write_text(
        'FROM scratch\nCOPY rootfs/ /\nENV PATH=/bin\nENTRYPOINT ["/bin/sh"]\n'
    )
    out = _cache() / "toolbox.tar"
    images.build_image(context=ctx, tag=TOOLBOX_TAG, output=out)
    return out


def data_archive() -> Path:
    """A data-only image for the image-volume proof."""
    ctx = _cache() / "data-context"
    shutil.rmtree(ctx, ignore_errors=True)
    (ctx / "data").mkdir(parents=True)
    (ctx / "data" / "hello.txt").write_text(DATA_TEXT)
    (ctx / "Dockerfile").write_text("FROM scratch\nCOPY data/ /data/\n")
    out = _cache() / "data.tar"
    images.build_image(context=ctx, tag=DATA_TAG, output=out)
    return out
