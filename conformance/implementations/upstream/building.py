"""Build `workflow-controller` and `argoexec` from a source tree or the module proxy.

A source tree (`sources.resolve`) is built where it stands, cached by its key
(commit, dirty digest or tree digest). Without one, the module comes from the
Go module proxy; a proxy that refuses it (this project's build machines answer
`403 Forbidden: This module version is not available` for every
argo-workflows v3 and v4 version) is reported with the proxy's own words
before any build starts, so the failure is obvious and pasteable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import CommandError
from conformance.implementations.upstream import pins
from conformance.implementations.upstream.sources import Source
from plumbing import commands
from plumbing import gobuilding

GO_ENV = {"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
BUILD_NAME = "argo-workflows"
"""The builds' cache name: `<cache>/components/argo-workflows-<key>`."""


@dataclass(frozen=True)
class ModuleSource:
    """Where `go mod download` put the module."""

    directory: Path
    version: str


def _json(text: str) -> dict[str, Any]:
    """The JSON object in `go mod download -json` output ({} if there is none)."""
    start, end = text.find("{"), text.rfind("}")
    try:
        info = json.loads(text[start : end + 1]) if 0 <= start < end else {}
    except json.JSONDecodeError:
        return {}
    return info if isinstance(info, dict) else {}


def download(version: str) -> ModuleSource:
    """Download the module (CRDs and sources); CommandError quoting the proxy if refused."""
    argv = ["go", "mod", "download", "-json", f"{pins.MODULE}@{version}"]
    try:
        out = commands.capture(argv, env=GO_ENV, error=CommandError)
    except CommandError as exc:
        said = _json(exc.output).get("Error") or exc.output.strip()
        raise CommandError(
            command=argv,
            returncode=exc.returncode,
            output=f"the Go module proxy refused {pins.MODULE}@{version}: {said}",
        ) from exc
    info = _json(out)
    if info.get("Error") or not info.get("Dir"):
        said = info.get("Error") or out.strip()
        raise CommandError(
            command=argv,
            returncode=0,
            output=f"the Go module proxy refused {pins.MODULE}@{version}: {said}",
        )
    return ModuleSource(directory=Path(info["Dir"]), version=version)


PROGRAMS = ("workflow-controller", "argoexec")


def _ldflags(module: str, version: str, commit: str, dirty: bool) -> tuple[str, ...]:
    # The variables upstream's Makefile stamps (in the root package of whichever
    # module the tree is: `/v4`, or `/v3` for v4.0.0 and v4.0.1), so `argo
    # version` and the controller's start-up line say what was built.
    flags = [f"-X {module}.version={version}"]
    if commit:
        flags += [
            f"-X {module}.gitCommit={commit}",
            f"-X {module}.gitTreeState={'dirty' if dirty else 'clean'}",
        ]
    return tuple(flags)


def build_source(source: Source, cache_dir: Path) -> Path:
    """Build both binaries from a source tree, statically; return the bin dir."""
    spec = gobuilding.GoBuild(
        name=BUILD_NAME,
        version=source.key,
        module_dir=source.directory,
        packages=tuple(f"./cmd/{program}" for program in PROGRAMS),
        tags=pins.BUILD_TAGS,
        ldflags=_ldflags(source.module, source.version, source.commit, source.dirty),
        static=True,
    )
    # A dirty tree may have changed since its last build under the same digest
    # only if the digest missed a file; rebuilding it is cheap insurance.
    return gobuilding.build(
        spec, cache_dir=cache_dir, force=source.dirty, error=CommandError
    )


def is_source_built(key: str, cache_dir: Path) -> bool:
    """Whether the source keyed `key` (`Source.key`) is built and stamped; builds nothing."""
    spec = gobuilding.GoBuild(name=BUILD_NAME, version=key, packages=())
    return gobuilding.is_built(spec, cache_dir)


def build_binaries(version: str, cache_dir: Path) -> Path:
    """Build both binaries from the module proxy; return the bin dir."""
    download(version)  # fail early, quoting the proxy
    spec = gobuilding.GoBuild(
        name=BUILD_NAME,
        version=version,
        requires=((pins.MODULE, version),),
        packages=(
            f"{pins.MODULE}/cmd/workflow-controller",
            f"{pins.MODULE}/cmd/argoexec",
        ),
        tags=pins.BUILD_TAGS,
        ldflags=(f"-X {pins.MODULE}.version={version}",),
    )
    return gobuilding.build(spec, cache_dir=cache_dir, error=CommandError)


def image_contexts(
    bindir: Path, cache_dir: Path, *, registry: str, tag: str
) -> list[tuple[str, Path]]:
    """Prepare FROM-scratch build contexts for both images; return (ref, dir) pairs."""
    contexts = []
    for name in PROGRAMS:
        binary = name
        context = cache_dir / "images" / f"argo-{name}-{tag}"
        (context / "bin").mkdir(parents=True, exist_ok=True)
        target = context / "bin" / binary
        target.write_bytes((bindir / binary).read_bytes())
        target.chmod(0o755)
        (context / "Dockerfile").write_text(
            "FROM scratch\n"
            f"COPY bin/{binary} /bin/{binary}\n"
            "ENV PATH=/bin\n"
            "USER 8737\n"
            f'ENTRYPOINT ["/bin/{binary}"]\n'
        )
        contexts.append((f"{registry}/{name}:{tag}", context))
    return contexts
