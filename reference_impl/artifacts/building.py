"""Build the pinned S3 server from the Go module proxy, cached by version.

The server (`pins.SERVER_MODULE` at `pins.SERVER_VERSION`) is compiled in a
throwaway wrapper module under `<cache>/work/<name>-<version>` with Go's own
toolchain only (`GOTOOLCHAIN=local`: a module asking for a newer Go fails fast
instead of downloading one) and `CGO_ENABLED=0`, so the result is a static
executable that runs in a `FROM scratch` image. The executable lands in
`<cache>/components/<name>-<version>/bin`; a `.complete` stamp written last
marks a finished build, so a warm machine pays nothing and an interrupted
build is redone from scratch.
"""

from __future__ import annotations

import logging
import os
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path

from reference_impl.artifacts import pins
from reference_impl.artifacts._proc import run
from reference_impl.artifacts.errors import ArtifactError

logger = logging.getLogger(__name__)

STAMP = ".complete"
_PT_INTERP = 3  # ELF program header type naming a dynamic loader


@dataclass(frozen=True)
class BuildSettings:
    """Where builds and their caches live."""

    cache_dir: Path
    """Root of everything built outside the repo (default ~/.cache/wpc)."""

    @classmethod
    def from_env(cls) -> BuildSettings:
        """Read WPC_CACHE_DIR (see docs/environment-variables.md)."""
        default = Path.home() / ".cache" / "wpc"
        return cls(cache_dir=Path(os.environ.get("WPC_CACHE_DIR") or default))

    @property
    def component_dir(self) -> Path:
        """Directory of the pinned server build: components/<name>-<version>."""
        return (
            self.cache_dir / "components" / f"{pins.SERVER_NAME}-{pins.SERVER_VERSION}"
        )

    @property
    def binary(self) -> Path:
        """Path the built server has once the build is complete."""
        return self.component_dir / "bin" / pins.SERVER_BINARY

    @property
    def log_path(self) -> Path:
        """Log of every command of the build (appended to, never truncated)."""
        return (
            self.cache_dir
            / "logs"
            / f"build-{pins.SERVER_NAME}-{pins.SERVER_VERSION}.log"
        )

    @property
    def work_dir(self) -> Path:
        """The wrapper module the build runs in."""
        return self.cache_dir / "work" / f"{pins.SERVER_NAME}-{pins.SERVER_VERSION}"


def is_built(settings: BuildSettings) -> bool:
    """True if the stamped build exists (what tests check before skipping)."""
    return (settings.component_dir / STAMP).is_file() and settings.binary.is_file()


def _write_wrapper(work_dir: Path) -> None:
    work_dir.mkdir(parents=True, exist_ok=True)
    (work_dir / "go.mod").write_text(
        f"module wpc.local/build/{pins.SERVER_NAME}\n\ngo 1.26.0\n\n"
        f"require {pins.SERVER_MODULE} {pins.SERVER_VERSION}\n"
    )
    # A tools file keeps the requirement alive through `go mod tidy`, which
    # then resolves exactly the graph of the package we build.
    (work_dir / "tools.go").write_text(
        f'//go:build tools\n\npackage tools\n\nimport _ "{pins.SERVER_PACKAGE}"\n'
    )


def is_static(path: Path) -> bool:
    """True if an ELF executable names no dynamic loader (no PT_INTERP header)."""
    with path.open("rb") as f:
        header = f.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2:  # 64-bit ELF only
            raise ArtifactError(f"{path} is not a 64-bit ELF executable")
        (phoff,) = struct.unpack_from("<Q", header, 32)
        phentsize, phnum = struct.unpack_from("<HH", header, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(
        struct.unpack_from("<I", table, i * phentsize)[0] != _PT_INTERP
        for i in range(phnum)
    )


def build(settings: BuildSettings, *, force: bool = False) -> Path:
    """Build the server unless a stamped build exists; return the executable."""
    if is_built(settings) and not force:
        return settings.binary
    target = settings.component_dir
    shutil.rmtree(target, ignore_errors=True)
    _write_wrapper(settings.work_dir)
    env = {
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod -buildvcs=false",
        "CGO_ENABLED": "0",
    }
    log = settings.log_path
    run(["go", "mod", "tidy"], log_path=log, env=env, cwd=settings.work_dir)
    staging = target / "staging"
    staging.mkdir(parents=True)
    ldflags = f"-s -w -X main.Version={pins.SERVER_VERSION} -X main.Build=wpc"
    run(
        [
            "go",
            "build",
            "-trimpath",
            "-ldflags",
            ldflags,
            "-o",
            f"{staging}/",
            pins.SERVER_PACKAGE,
        ],
        log_path=log,
        env=env,
        cwd=settings.work_dir,
    )
    built = staging / pins.SERVER_PACKAGE.rsplit("/", 1)[-1]
    if not is_static(built):
        raise ArtifactError(
            f"{built} is dynamically linked; a scratch image cannot run it"
        )
    settings.binary.parent.mkdir(parents=True, exist_ok=True)
    built.rename(settings.binary)
    staging.rmdir()
    (target / STAMP).write_text(pins.SERVER_VERSION + "\n")
    logger.info(
        "Built %s %s into %s.", pins.SERVER_NAME, pins.SERVER_VERSION, settings.binary
    )
    return settings.binary
