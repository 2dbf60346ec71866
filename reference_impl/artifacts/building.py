"""Build the pinned S3 server from the Go module proxy, cached by version.

The server (`pins.SERVER_MODULE` at `pins.SERVER_VERSION`) is one
`plumbing.gobuilding.GoBuild`: a throwaway wrapper module, Go's own toolchain
only, `CGO_ENABLED=0` and a static check, so the result runs in a `FROM
scratch` image. The executable lands in
`<cache>/components/<name>-<version>/bin/<binary>`, the layout this package
has always used, so an existing cache stays valid.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from plumbing import gobuilding
from reference_impl.artifacts import pins
from reference_impl.artifacts.errors import ArtifactError
from reference_impl.artifacts.errors import BuildError

logger = logging.getLogger(__name__)

SERVER = gobuilding.GoBuild(
    name=pins.SERVER_NAME,
    version=pins.SERVER_VERSION,
    packages=(pins.SERVER_PACKAGE,),
    requires=((pins.SERVER_MODULE, pins.SERVER_VERSION),),
    ldflags=("-X", f"main.Version={pins.SERVER_VERSION}", "-X", "main.Build=wpc"),
    static=True,
    outputs={pins.SERVER_PACKAGE.rsplit("/", 1)[-1]: pins.SERVER_BINARY},
)
"""The one Go build of this package; `go build -o bin/` names it after its package."""


@dataclass(frozen=True)
class BuildSettings(gobuilding.BuildSettings):
    """Where the server's build and its cache live (WPC_CACHE_DIR)."""

    @classmethod
    def from_env(cls) -> BuildSettings:
        """Read WPC_CACHE_DIR, as every Go build does (docs/environment-variables.md)."""
        return cls(cache_dir=gobuilding.BuildSettings.from_env().cache_dir)

    @property
    def component_dir(self) -> Path:
        """Directory of the pinned server build: components/<name>-<version>."""
        return gobuilding.component_dir(self.cache_dir, SERVER.name, SERVER.version)

    @property
    def binary(self) -> Path:
        """Path the built server has once the build is complete."""
        return self.component_dir / "bin" / pins.SERVER_BINARY

    @property
    def log_path(self) -> Path:
        """Log of every command of the build (appended to, never truncated)."""
        return gobuilding.log_path(self.cache_dir, SERVER.name, SERVER.version)

    @property
    def work_dir(self) -> Path:
        """The wrapper module the build runs in."""
        return self.cache_dir / "work" / f"{SERVER.name}-{SERVER.version}"


def is_built(settings: BuildSettings) -> bool:
    """True if the stamped build exists (what tests check before skipping)."""
    return gobuilding.is_built(SERVER, settings.cache_dir) and settings.binary.is_file()


def build(settings: BuildSettings, *, force: bool = False) -> Path:
    """Build the server unless a stamped build exists; return the executable."""
    if is_built(settings) and not force:
        return settings.binary
    try:
        # force: a stamp without its executable is no build either.
        gobuilding.build(
            SERVER, cache_dir=settings.cache_dir, force=True, error=BuildError
        )
    except gobuilding.NotStatic as exc:
        raise ArtifactError(str(exc)) from exc
    return settings.binary
