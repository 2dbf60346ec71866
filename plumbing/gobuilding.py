"""Build Go programs from the module proxy or a local module, cached by version.

Every Go executable WPC runs (the local cluster's components, the S3 server,
the suite's probe, upstream Argo) is compiled by `build` into
`<cache>/components/<name>-<version>/bin`. A `.complete` stamp written last
marks a finished build: a warm machine pays nothing, and an interrupted build
is redone from scratch.

A build from the module proxy runs in a throwaway *wrapper module* under
`<cache>/work/<name>-<version>` that requires the pinned modules: Kubernetes
and etcd carry `replace` directives that `go install pkg@version` refuses, so
every proxy build goes the same way. A build of a local module (`module_dir`)
runs `go build` in that directory instead. `GOTOOLCHAIN=local` makes a module
that asks for a newer Go fail fast instead of downloading a toolchain.
"""

from __future__ import annotations

import logging
import os
import shutil
import struct
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from plumbing import commands
from plumbing.errors import CommandFailed
from plumbing.errors import EvidenceError

logger = logging.getLogger(__name__)

STAMP = ".complete"
GO_VERSION = "1.26.0"
"""The `go` line of wrapper modules: the toolchain every machine has."""
_PT_INTERP = 3  # ELF program header type naming a dynamic loader


class NotStatic(EvidenceError):
    """A build that must be static (to run in a FROM-scratch image) is not."""


@dataclass(frozen=True)
class GoBuild:
    """One Go build: where the source comes from, the packages, and how."""

    name: str
    version: str
    """Cache key beside `name`: a module version, a tag, or a source digest."""
    packages: tuple[str, ...]
    """Main packages; `go build -o bin/` writes one executable per package."""
    requires: tuple[tuple[str, str], ...] = ()
    """(module, version) pairs the wrapper module requires (proxy builds)."""
    replaces: tuple[tuple[str, str], ...] = ()
    module_dir: Path | None = None
    """A local module to build in, instead of a wrapper module (no proxy source)."""
    tags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    cgo: bool = False
    static: bool = False
    """Refuse a dynamically linked result (it must run in a FROM-scratch image)."""
    outputs: Mapping[str, str] = field(default_factory=dict)
    """Rename map: built executable name -> installed name."""


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


def component_dir(cache_dir: Path, name: str, version: str) -> Path:
    """Directory of one build: components/<name>-<version>."""
    return cache_dir / "components" / f"{name}-{version}"


def log_path(cache_dir: Path, name: str, version: str) -> Path:
    """Log of every command of one build (appended to, never truncated)."""
    return cache_dir / "logs" / f"build-{name}-{version}.log"


def is_built(spec: GoBuild, cache_dir: Path) -> bool:
    """True if the stamped build exists."""
    return (component_dir(cache_dir, spec.name, spec.version) / STAMP).is_file()


def go_env(*, cgo: bool, local: bool = False) -> dict[str, str]:
    """The environment of every go command WPC runs.

    A wrapper module is ours to resolve (`-mod=mod`); a local module is
    someone's source tree, so its go.mod and go.sum are never rewritten
    (`-mod=readonly`): an inconsistent tree fails with go's own message.
    """
    return {
        "GOTOOLCHAIN": "local",  # fail fast instead of downloading a toolchain
        "GOFLAGS": f"-mod={'readonly' if local else 'mod'} -buildvcs=false",
        "CGO_ENABLED": "1" if cgo else "0",
    }


def _write_wrapper(spec: GoBuild, workdir: Path) -> None:
    lines = [f"module wpc.local/build/{spec.name}", "", f"go {GO_VERSION}", ""]
    lines += ["require ("] + [f"\t{m} {v}" for m, v in spec.requires] + [")", ""]
    if spec.replaces:
        lines += ["replace ("]
        lines += [f"\t{m} => {m} {v}" for m, v in spec.replaces]
        lines += [")", ""]
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "go.mod").write_text("\n".join(lines))
    imports = "\n".join(f'\t_ "{p}"' for p in spec.packages)
    # A tools file keeps the requirements alive through `go mod tidy`, which
    # then resolves the graph of exactly the packages we build.
    (workdir / "tools.go").write_text(
        f"//go:build tools\n\npackage tools\n\nimport (\n{imports}\n)\n"
    )


def is_static(path: Path) -> bool:
    """True if an ELF executable names no dynamic loader (no PT_INTERP header)."""
    with path.open("rb") as f:
        header = f.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2:  # 64-bit ELF only
            raise NotStatic(f"{path} is not a 64-bit ELF executable")
        (phoff,) = struct.unpack_from("<Q", header, 32)
        phentsize, phnum = struct.unpack_from("<HH", header, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(
        struct.unpack_from("<I", table, i * phentsize)[0] != _PT_INTERP
        for i in range(phnum)
    )


def build(
    spec: GoBuild,
    *,
    cache_dir: Path,
    force: bool = False,
    error: Callable[..., CommandFailed] = CommandFailed,
) -> Path:
    """Build `spec` unless its stamped cache entry exists; return its bin dir."""
    target = component_dir(cache_dir, spec.name, spec.version)
    bindir = target / "bin"
    if is_built(spec, cache_dir) and not force:
        return bindir
    log = log_path(cache_dir, spec.name, spec.version)
    shutil.rmtree(target, ignore_errors=True)
    env = go_env(cgo=spec.cgo, local=spec.module_dir is not None)
    if spec.module_dir is None:
        workdir = cache_dir / "work" / f"{spec.name}-{spec.version}"
        _write_wrapper(spec, workdir)
        commands.run(
            ["go", "mod", "tidy"], log_path=log, env=env, cwd=workdir, error=error
        )
    else:
        workdir = spec.module_dir
    staging = target / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    argv = ["go", "build", "-trimpath", "-o", f"{staging}/"]
    if spec.tags:
        argv += ["-tags", ",".join(spec.tags)]
    argv += ["-ldflags", " ".join(("-s", "-w", *spec.ldflags))]
    argv += list(spec.packages)
    commands.run(argv, log_path=log, env=env, cwd=workdir, error=error)
    built = sorted(staging.iterdir())
    for exe in built:
        if spec.static and not is_static(exe):
            raise NotStatic(
                f"{exe} is dynamically linked; a scratch image cannot run it"
            )
    bindir.mkdir(parents=True, exist_ok=True)
    for exe in built:
        exe.rename(bindir / spec.outputs.get(exe.name, exe.name))
    staging.rmdir()
    (target / STAMP).write_text(spec.version + "\n")
    logger.info("Built %s %s into %s.", spec.name, spec.version, bindir)
    return bindir
