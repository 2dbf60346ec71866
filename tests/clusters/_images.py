"""Images the cluster proofs use, built with clusters.images and cached by content.

The toolbox is the suite's own tools image (busybox + the probe helper), so the
proofs and the conformance scenarios exercise the same binaries.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from clusters import building
from clusters import images
from clusters import pins
from clusters.local.settings import LocalSettings
from conformance import tools
from plumbing import commands
from plumbing.gobuilding import BuildSettings

TOOLBOX_TAG = tools.TAG
DATA_TAG = "wpc.local/cluster-proofs/data:1"
DATA_TEXT = "served from an image volume\n"


def _cache() -> Path:
    return BuildSettings.from_env().cache_dir


def toolbox_archive() -> Path:
    """The suite's tools image as an OCI archive."""
    out = _cache() / "cluster-proofs" / "toolbox.tar"
    images.build_image(
        context=tools.prepare_context(_cache()), tag=TOOLBOX_TAG, output=out
    )
    return out


def data_archive() -> Path:
    """A data-only image for the image-volume proof."""
    ctx = _cache() / "cluster-proofs" / "data-context"
    shutil.rmtree(ctx, ignore_errors=True)
    (ctx / "data").mkdir(parents=True)
    (ctx / "data" / "hello.txt").write_text(DATA_TEXT)
    (ctx / "Dockerfile").write_text("FROM scratch\nCOPY data/ /data/\n")
    out = _cache() / "cluster-proofs" / "data.tar"
    images.build_image(context=ctx, tag=DATA_TAG, output=out)
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
