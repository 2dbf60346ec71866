"""Build the upstream components from the Go module proxy, cached by version.

Every binary the local provider runs is compiled here from a pinned module
version (`clusters.pins`) into `<cache>/components/<name>-<version>/bin`. A
component whose directory holds a `.complete` stamp is never rebuilt, so a warm
machine pays nothing and a fresh one rebuilds from the project's files alone.

Kubernetes and etcd need a throwaway *wrapper module*: their go.mod files carry
`replace` directives, which `go install pkg@version` refuses. The other modules
have none and are built the same way for uniformity.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters import pins
from clusters._proc import capture
from clusters._proc import run

logger = logging.getLogger(__name__)

STAMP = ".complete"


@dataclass(frozen=True)
class GoComponent:
    """One Go build: a wrapper module, the packages to build, and how."""

    name: str
    version: str
    requires: tuple[tuple[str, str], ...]
    """(module, version) pairs the wrapper module requires."""
    packages: tuple[str, ...]
    """Main packages; `go build -o bin/` writes one executable per package."""
    replaces: tuple[tuple[str, str], ...] = ()
    tags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    cgo: bool = False
    outputs: dict[str, str] = field(default_factory=dict)
    """Rename map: built executable name -> installed name."""


def _k8s_ldflags(commit: str) -> tuple[str, ...]:
    # Upstream stamps both version packages (hack/lib/version.sh); without it
    # /version and the node report "v0.0.0-master+$Format:%H$".
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    major, minor = pins.KUBERNETES.lstrip("v").split(".")[:2]
    flags = []
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [
            f"-X {pkg}.gitVersion={pins.KUBERNETES}",
            f"-X {pkg}.gitMajor={major}",
            f"-X {pkg}.gitMinor={minor}",
            f"-X {pkg}.gitCommit={commit}",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.buildDate={date}",
        ]
    return tuple(flags)


def components(k8s_commit: str = "") -> dict[str, GoComponent]:
    """Return every Go component of the local cluster, keyed by name."""
    k8s_cmds = (
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
        "kubectl",
    )
    return {
        "kubernetes": GoComponent(
            name="kubernetes",
            version=pins.KUBERNETES,
            requires=(("k8s.io/kubernetes", pins.KUBERNETES),),
            replaces=tuple(
                (f"k8s.io/{m}", pins.KUBERNETES_STAGING) for m in pins.STAGING_MODULES
            ),
            packages=tuple(f"k8s.io/kubernetes/cmd/{c}" for c in k8s_cmds),
            tags=("selinux", "notest"),
            ldflags=_k8s_ldflags(k8s_commit),
        ),
        "etcd": GoComponent(
            name="etcd",
            version=pins.ETCD,
            requires=(
                ("go.etcd.io/etcd/server/v3", pins.ETCD),
                ("go.etcd.io/etcd/etcdctl/v3", pins.ETCD),
            ),
            packages=("go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/etcdctl/v3"),
            ldflags=(f"-X go.etcd.io/etcd/api/v3/version.GitSHA={pins.ETCD}",),
            outputs={"server": "etcd"},  # go names it after the last path element
        ),
        "containerd": GoComponent(
            name="containerd",
            version=pins.CONTAINERD,
            requires=(("github.com/containerd/containerd/v2", pins.CONTAINERD),),
            packages=(
                "github.com/containerd/containerd/v2/cmd/containerd",
                "github.com/containerd/containerd/v2/cmd/ctr",
                "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2",
            ),
            # The shim wants no_grpc upstream; it only shrinks the binary, so one
            # tag set for all three keeps the build to a single compile.
            tags=("no_btrfs", "no_devmapper", "no_zfs", "urfave_cli_no_docs"),
            ldflags=(
                "-X github.com/containerd/containerd/v2/version.Version="
                + pins.CONTAINERD,
            ),
        ),
        "runc": GoComponent(
            name="runc",
            version=pins.RUNC,
            requires=(("github.com/opencontainers/runc", pins.RUNC),),
            packages=("github.com/opencontainers/runc",),
            tags=("seccomp", "urfave_cli_no_docs"),
            cgo=True,
        ),
        "cni-plugins": GoComponent(
            name="cni-plugins",
            version=pins.CNI_PLUGINS,
            requires=(("github.com/containernetworking/plugins", pins.CNI_PLUGINS),),
            packages=tuple(
                f"github.com/containernetworking/plugins/plugins/{p}"
                for p in (
                    "main/bridge",
                    "main/loopback",
                    "ipam/host-local",
                    "meta/portmap",
                    "meta/firewall",
                )
            ),
            ldflags=(
                "-X github.com/containernetworking/plugins/pkg/utils/buildversion."
                f"BuildVersion={pins.CNI_PLUGINS}",
            ),
        ),
        "coredns": GoComponent(
            name="coredns",
            version=pins.COREDNS,
            requires=(("github.com/coredns/coredns", pins.COREDNS),),
            packages=("github.com/coredns/coredns",),
        ),
    }


@dataclass(frozen=True)
class BuildSettings:
    """Where builds and their caches live."""

    cache_dir: Path
    """Root of everything cached outside the repo (default ~/.cache/wpc)."""

    @classmethod
    def from_env(cls) -> BuildSettings:
        """Read WPC_CACHE_DIR (see docs/environment-variables.md)."""
        default = Path.home() / ".cache" / "wpc"
        return cls(cache_dir=Path(os.environ.get("WPC_CACHE_DIR", default)))


def component_dir(settings: BuildSettings, name: str, version: str) -> Path:
    """Directory holding the built executables of one component version."""
    return settings.cache_dir / "components" / f"{name}-{version}"


def _go_env(comp: GoComponent) -> dict[str, str]:
    return {
        "GOTOOLCHAIN": "local",  # fail fast instead of downloading a toolchain
        "GOFLAGS": "-mod=mod -buildvcs=false",
        "CGO_ENABLED": "1" if comp.cgo else "0",
    }


def _write_wrapper(comp: GoComponent, workdir: Path) -> None:
    lines = [f"module wpc.local/build/{comp.name}", "", "go 1.26.0", ""]
    lines += ["require ("] + [f"\t{m} {v}" for m, v in comp.requires] + [")", ""]
    if comp.replaces:
        lines += ["replace ("]
        lines += [f"\t{m} => {m} {v}" for m, v in comp.replaces]
        lines += [")", ""]
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "go.mod").write_text("\n".join(lines))
    imports = "\n".join(f'\t_ "{p}"' for p in comp.packages)
    # A tools file keeps the requirements alive and lets `go mod download`
    # resolve the full graph of exactly the packages we build.
    (workdir / "tools.go").write_text(
        f"//go:build tools\n\npackage tools\n\nimport (\n{imports}\n)\n"
    )


def kubernetes_commit() -> str:
    """Commit hash the module proxy reports for the pinned Kubernetes, or ''."""
    try:
        out = capture(
            ["go", "mod", "download", "-json", f"k8s.io/kubernetes@{pins.KUBERNETES}"],
            env={"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"},
        )
    except Exception:
        return ""
    origin = json.loads(out).get("Origin") or {}
    return str(origin.get("Hash", ""))


def build(comp: GoComponent, settings: BuildSettings, *, force: bool = False) -> Path:
    """Build one component unless its stamped cache entry exists; return bin dir."""
    target = component_dir(settings, comp.name, comp.version)
    bindir = target / "bin"
    if (target / STAMP).exists() and not force:
        return bindir
    logs = settings.cache_dir / "logs"
    log_path = logs / f"build-{comp.name}-{comp.version}.log"
    workdir = settings.cache_dir / "work" / f"{comp.name}-{comp.version}"
    shutil.rmtree(target, ignore_errors=True)
    _write_wrapper(comp, workdir)
    env = _go_env(comp)
    run(["go", "mod", "tidy"], log_path=log_path, env=env, cwd=workdir)
    staging = target / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    cmd = ["go", "build", "-trimpath", "-o", str(staging) + "/"]
    if comp.tags:
        cmd += ["-tags", ",".join(comp.tags)]
    cmd += ["-ldflags", " ".join(("-s", "-w", *comp.ldflags))]
    cmd += list(comp.packages)
    run(cmd, log_path=log_path, env=env, cwd=workdir)
    bindir.mkdir(parents=True, exist_ok=True)
    for exe in staging.iterdir():
        exe.rename(bindir / comp.outputs.get(exe.name, exe.name))
    staging.rmdir()
    (target / STAMP).write_text(comp.version + "\n")
    logger.info("Built %s %s into %s.", comp.name, comp.version, bindir)
    return bindir


def build_pause(settings: BuildSettings, source: Path) -> Path:
    """Compile our pause program statically; return the directory holding it."""
    target = component_dir(settings, "pause", pins.PAUSE)
    if (target / STAMP).exists():
        return target / "bin"
    (target / "bin").mkdir(parents=True, exist_ok=True)
    run(
        [
            "gcc",
            "-Os",
            "-Wall",
            "-Werror",
            "-static",
            "-o",
            str(target / "bin" / "pause"),
            str(source),
        ],
        log_path=settings.cache_dir / "logs" / f"build-pause-{pins.PAUSE}.log",
    )
    run(
        ["strip", str(target / "bin" / "pause")],
        log_path=settings.cache_dir / "logs" / f"build-pause-{pins.PAUSE}.log",
    )
    (target / STAMP).write_text(pins.PAUSE + "\n")
    return target / "bin"


def build_all(
    settings: BuildSettings, names: Sequence[str] | None = None
) -> dict[str, Path]:
    """Build the named components (default: all) in order; return their bin dirs."""
    comps = components(kubernetes_commit())
    wanted = list(names) if names else list(comps)
    return {name: build(comps[name], settings) for name in wanted}
