"""The kubectl the project's tests render kustomize manifests with.

Why: the project builds kubectl itself with the local cluster's Kubernetes (pinned in
`clusters.pins`), so a fresh machine has one without kubectl on PATH; the manifests
tests used to look on PATH only and skipped there. The built one (a finished build:
its stamp is written last) comes first, PATH second; `make test` builds it before the
unit stage (`python -m clusters build-components kubernetes`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from clusters import pins
from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings

MISSING = (
    "kubectl is neither built ({built}) nor on PATH: "
    "run `python -m clusters build-components kubernetes` (make test does)"
)


def built(settings: BuildSettings | None = None) -> Path:
    """Where the project's own kubectl is (or will be) built."""
    s = BuildSettings.from_env() if settings is None else settings
    return (
        gobuilding.component_dir(s.cache_dir, "kubernetes", pins.KUBERNETES)
        / "bin"
        / "kubectl"
    )


def find(settings: BuildSettings | None = None) -> Path | None:
    """The built kubectl when its build finished, else kubectl on PATH, else None."""
    own = built(settings)
    if (own.parents[1] / gobuilding.STAMP).exists() and own.is_file():
        return own
    found = shutil.which("kubectl")
    return Path(found) if found else None


def missing_reason(settings: BuildSettings | None = None) -> str:
    """The skip reason when `find` returns None: where to look and how to build it."""
    return MISSING.format(built=built(settings))
