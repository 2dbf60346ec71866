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
from collections.abc import Sequence
from pathlib import Path

from clusters import pins
from clusters.errors import RunError
from plumbing import commands
from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings
from plumbing.gobuilding import GoBuild

logger = logging.getLogger(__name__)

__all__ = [
    "build_all",
    "build_kind",
    "build_pause",
    "component_dir",
    "components",
    "kind_cli",
]


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


def components(k8s_commit: str = "") -> dict[str, GoBuild]:
    """Return every Go component of the local cluster, keyed by name."""
    k8s_cmds = (
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubelet",
        "kube-proxy",
        "kubectl",
        "kubeadm",  # the kind node image bootstraps with it; the local provider does not
    )
    return {
        "kubernetes": GoBuild(
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
        "etcd": GoBuild(
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
        "containerd": GoBuild(
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
        "runc": GoBuild(
            name="runc",
            version=pins.RUNC,
            requires=(("github.com/opencontainers/runc", pins.RUNC),),
            packages=("github.com/opencontainers/runc",),
            tags=("seccomp", "urfave_cli_no_docs"),
            cgo=True,
        ),
        "cni-plugins": GoBuild(
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
        "coredns": GoBuild(
            name="coredns",
            version=pins.COREDNS,
            requires=(("github.com/coredns/coredns", pins.COREDNS),),
            packages=("github.com/coredns/coredns",),
        ),
    }


def kind_cli() -> GoBuild:
    """The kind CLI; apart from `components()`, which the local provider builds whole."""
    return GoBuild(
        name="kind",
        version=pins.KIND,
        requires=(("sigs.k8s.io/kind", pins.KIND),),
        packages=("sigs.k8s.io/kind",),
    )


def build_kind(settings: BuildSettings) -> Path:
    """Build (or reuse) the pinned kind CLI; return its path."""
    return (
        gobuilding.build(kind_cli(), cache_dir=settings.cache_dir, error=RunError)
        / "kind"
    )


def component_dir(settings: BuildSettings, name: str, version: str) -> Path:
    """Directory holding the built executables of one component version."""
    return gobuilding.component_dir(settings.cache_dir, name, version)


def kubernetes_commit() -> str:
    """Commit hash the module proxy reports for the pinned Kubernetes, or ''."""
    try:
        out = commands.capture(
            ["go", "mod", "download", "-json", f"k8s.io/kubernetes@{pins.KUBERNETES}"],
            env=gobuilding.go_env(cgo=False),
            error=RunError,
        )
    except RunError:
        return (
            ""  # intentionally ignore: the version stamp is cosmetic, the build is not
        )
    origin = json.loads(out).get("Origin") or {}
    return str(origin.get("Hash", ""))


def build_pause(settings: BuildSettings, source: Path) -> Path:
    """Compile our pause program statically; return the directory holding it."""
    target = component_dir(settings, "pause", pins.PAUSE)
    if (target / gobuilding.STAMP).exists():
        return target / "bin"
    (target / "bin").mkdir(parents=True, exist_ok=True)
    commands.run(
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
        error=RunError,
    )
    commands.run(
        ["strip", str(target / "bin" / "pause")],
        log_path=settings.cache_dir / "logs" / f"build-pause-{pins.PAUSE}.log",
        error=RunError,
    )
    (target / gobuilding.STAMP).write_text(pins.PAUSE + "\n")
    return target / "bin"


def build_all(
    settings: BuildSettings, names: Sequence[str] | None = None
) -> dict[str, Path]:
    """Build the named components (default: all) in order; return their bin dirs."""
    comps = components(kubernetes_commit())
    wanted = list(names) if names else list(comps)
    return {
        name: gobuilding.build(
            comps[name], cache_dir=settings.cache_dir, error=RunError
        )
        for name in wanted
    }
