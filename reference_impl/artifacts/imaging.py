"""Prepare the build context of the S3 server image.

The Dockerfile (`image/Dockerfile`, FROM scratch) only copies files, so the
context is the Dockerfile plus the static server executable. The lead's
`python -m clusters build-image --context DIR --tag names.IMAGE --output TAR`
turns the directory into an OCI archive without a Docker engine.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from reference_impl.artifacts import names
from reference_impl.artifacts import pins

logger = logging.getLogger(__name__)

DOCKERFILE = Path(__file__).parent / "image" / "Dockerfile"
IMAGE = names.IMAGE


def prepare_context(*, binary: Path, out_dir: Path) -> Path:
    """Fill `out_dir` with the Dockerfile and the server; return `out_dir`.

    Files the Dockerfile does not copy are removed first, so a reused
    directory never ships stale content.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = {"Dockerfile", pins.SERVER_BINARY}
    for stale in out_dir.iterdir():
        if stale.name not in wanted:
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale)
            else:
                stale.unlink()
    shutil.copyfile(DOCKERFILE, out_dir / "Dockerfile")
    target = out_dir / pins.SERVER_BINARY
    shutil.copyfile(binary, target)
    target.chmod(0o755)
    logger.info("Prepared the build context of %s in %s.", IMAGE, out_dir)
    return out_dir
