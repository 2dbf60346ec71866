"""Read upstream's Workflow CRD from the upstream source checkout (a bare git mirror).

The CRD is upstream's code and is never committed here; the paths derived from it are.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

MIRROR = Path("/work/.mirror/argoproj+argo-workflows/repo")
"""Where the project's upstream mirror lives on a maintainer's machine."""
TAG = "v4.1.2"
"""The upstream release the reference controller follows."""
CRD_PATH = "manifests/base/crds/full/argoproj.io_workflows.yaml"


class MirrorMissing(RuntimeError):
    """The upstream checkout or the CRD at the tag is not there."""


def crd_text(mirror: Path = MIRROR, tag: str = TAG) -> str:
    """Return the Workflow CRD's YAML at `tag`; MirrorMissing when it cannot be read."""
    if not mirror.exists():
        raise MirrorMissing(f"no upstream checkout at {mirror}")
    done = subprocess.run(
        ["git", "-C", str(mirror), "show", f"{tag}:{CRD_PATH}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        raise MirrorMissing(
            f"git show {tag}:{CRD_PATH} in {mirror} failed: {done.stderr.strip()}"
        )
    return done.stdout
