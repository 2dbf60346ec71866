"""Images the cluster proofs use, built with clusters.images.archives and cached by content.

The toolbox is the suite's own tools image (busybox + the probe helper), so the
proofs and the conformance scenarios exercise the same binaries.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from clusters import building
from clusters import pins
from clusters.images import archives
from clusters.local.settings import LocalSettings
from conformance import tools
from plumbing import commands
from plumbing.gobuilding import BuildSettings

TOOLBOX_TAG = tools.TAG
DATA_TAG = "wpc.local/cluster-proofs/data:1"
DATA_TEXT = "served from an image volume\n"
PUSHED_TAG = "wpc.local/cluster-proofs/pushed:1"


def _cache() -> Path:
    return BuildSettings.from_env().cache_dir


def toolbox_archive() -> Path:
    """The suite's tools image as an OCI archive."""
    out = _cache() / "cluster-proofs" / "toolbox.tar"
    archives.build_image(
        context=tools.prepare_context(_cache()), tag=TOOLBOX_TAG, output=out
    )
    return out


def data_archive() -> Path:
    """A data-only image for the image-volume proof."""
    root = _cache() / "cluster-proofs"
    return data_image(root / "data-context", root / "data.tar", DATA_TAG, DATA_TEXT)


def unique_data_archive(directory: Path) -> tuple[Path, str]:
    """A data-only image whose layer no node has yet, and the text its file holds."""
    text = f"pulled from a registry, {uuid.uuid4().hex}\n"
    archive = data_image(
        directory / "context", directory / "pushed.tar", PUSHED_TAG, text
    )
    return archive, text


def data_image(ctx: Path, out: Path, tag: str, text: str) -> Path:
    """Build `tag` from `ctx` to the OCI archive `out`: one file, /data/hello.txt."""
    shutil.rmtree(ctx, ignore_errors=True)
    (ctx / "data").mkdir(parents=True)
    (ctx / "data" / "hello.txt").write_text(text)
    (ctx / "Dockerfile").write_text("FROM scratch\nCOPY data/ /data/\n")
    archives.build_image(context=ctx, tag=tag, output=out)
    return out


def remove_image(ref: str, cluster: str) -> None:
    """Remove an image the kubelet pulled into the local cluster's containerd."""
    settings = LocalSettings.from_env(cluster)
    ctr = (
        building.component_dir(settings.build, "containerd", pins.CONTAINERD)
        / "bin"
        / "ctr"
    )
    commands.run(
        [
            str(ctr),
            "--address",
            str(settings.containerd_socket),
            "-n",
            "k8s.io",
            "images",
            "rm",
            "--sync",
            ref,
        ],
        log_path=settings.log_dir / "cluster-proofs-images.log",
    )
