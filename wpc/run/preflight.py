"""Everything `python -m conformance run` can check before it changes the host.

`check` runs before `clusters up` (which installs host packages, builds
Kubernetes and changes iptables, routes and kernel modules): the
implementation and its profile (schema, placeholders, images, variables), the
provider, the layouts, the features, the given files, and for the local
provider the host itself. It reads files and PATH only, so a typo costs well
under 5 s, not a 17-minute cluster build (#12). Every problem names the option,
file or key; all of them are reported at once.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from clusters import providers
from conformance.errors import DataError
from conformance.harness.cluster import timeouts
from conformance.harness.instances import layouts
from conformance.implementations import checking
from conformance.implementations import profiles
from conformance.implementations import variables
from conformance.plugin.state import scheduling
from conformance.report.runs import durations
from conformance.report.scores import historical
from conformance.report.scores import mutation
from wpc.run import targeting

LOCAL_TOOLS = {
    "go": "the cluster's components (Kubernetes, etcd, containerd) are built here with Go 1.26 "
    "(https://go.dev/doc/install; make it first on PATH, also under sudo)",
    "dpkg-query": "host packages are installed with apt (Debian 12 or Ubuntu 24.04)",
    "apt-get": "host packages are installed with apt (Debian 12 or Ubuntu 24.04)",
}
"""What the host-built providers (HOST_BUILT) run on the host first, and why."""

HOST_BUILT = {
    "local": "runs the cluster as host processes",
    "kind": "starts its own Docker engine and builds its kind CLI and node image",
}
"""Providers that build everything on the host (Go, apt) and must run as root; kind
brings its own dockerd (Debian's docker.io) and kind CLI, so neither need be on PATH."""

DOCKER_TOOLS = {"k3d": ("k3d", "docker")}
"""The CLIs a Docker-based provider drives from PATH."""

KIND_HOST_TOOLS = {
    "go": "the pinned kind CLI and kubectl are built here with Go 1.26 "
    "(https://go.dev/doc/install)",
    "docker": "kind drives the running Docker engine with the docker CLI "
    "(WPC_KIND_DOCKER=host)",
}
"""What kind in host mode needs instead of root and apt: the engine is the host's and
the suite's images are written without Docker (`clusters build-image`), then loaded
with `kind load image-archive`."""


@dataclass(frozen=True)
class Host:
    """What the preflight reads of the host; a seam so tests need not be root."""

    which: Callable[[str], str | None] = shutil.which
    euid: Callable[[], int] = os.geteuid
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    writable: Callable[[Path], bool] = lambda p: _writable(p)


def _writable(path: Path) -> bool:
    """True if `path`, or the nearest existing directory above it, is writable."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return os.access(candidate, os.W_OK)
    return False


def _profile(values: Mapping[str, Any], problems: list[str]) -> profiles.Profile | None:
    try:
        given = variables.parse(values.get("wpc_profile_vars") or [])
        return checking.check(
            str(values["wpc_implementation"]),
            variables=given,
            spec_path=values.get("wpc_spec"),
        )
    except DataError as exc:
        problems.append(f"--implementation: {exc}")
        return None


def _features(values: Mapping[str, Any], problems: list[str]) -> None:
    given = values.get("wpc_features")
    if given is None:
        return
    try:
        known = checking.known_features(values.get("wpc_spec"))
    except DataError as exc:
        problems.append(f"--wpc-spec: {exc}")
        return
    unknown = sorted({f.strip() for f in given.split(",") if f.strip()} - known)
    if unknown:
        problems.append(
            f"--features: unknown feature(s) {', '.join(unknown)} "
            f"(the spec defines: {', '.join(sorted(known))})"
        )


def _layouts(
    values: Mapping[str, Any], profile: profiles.Profile | None, problems: list[str]
) -> None:
    try:
        selected = layouts.parse_selection(
            str(values.get("wpc_layout") or layouts.BOTH)
        )
    except ValueError as exc:
        problems.append(str(exc))
        return
    if profile is not None and not set(selected) & set(profile.layouts):
        problems.append(
            f"--layout {values.get('wpc_layout')}: {profile.path} claims only "
            f"{', '.join(profile.layouts)} (layouts: key), so nothing would run"
        )


def _files(
    values: Mapping[str, Any], profile: profiles.Profile | None, problems: list[str]
) -> None:
    for dest, flag in (
        ("wpc_kubeconfig", "--kubeconfig"),
        ("wpc_spec", "--wpc-spec"),
        ("wpc_divergences", "--wpc-divergences"),
    ):
        path = values.get(dest)
        if path is not None and not Path(path).is_file():
            problems.append(f"{flag}: {path} is not a file")
    scores = values.get("wpc_negative_controls")
    if scores is not None and profile is not None:
        try:
            mutation.check(Path(scores), implementation=profile.name)
        except DataError as exc:
            problems.append(f"--negative-controls: {exc}")
    for dest, check, prefix in _READ_AS_THE_RUN_READS:
        given = values.get(dest)
        if given is None:
            continue
        try:
            check(given)
        except DataError as exc:
            problems.append(f"{prefix}{exc}")


_READ_AS_THE_RUN_READS: tuple[tuple[str, Callable[[Any], object], str], ...] = (
    (
        "wpc_timeout_scale",
        lambda given: timeouts.checked_scale(float(given), "--timeout-scale"),
        "",
    ),
    ("wpc_shard", lambda given: scheduling.parse_shard(str(given)), ""),
    ("wpc_durations", lambda given: durations.load(Path(given)), "--durations-file: "),
    (
        "wpc_history_result",
        lambda given: historical.load(Path(given)),
        "--history-result: ",
    ),
)
"""Options checked as the run will read them: (dest, the reading, what a problem
starts with, where the error does not name the option itself)."""


def _provider(values: Mapping[str, Any], host: Host, problems: list[str]) -> None:
    if values.get("wpc_kubeconfig") is not None:
        return  # the cluster is used as it is; no provider runs
    provider = str(values.get("wpc_provider") or "local")
    if provider not in providers.NAMES:
        problems.append(
            f"--provider {provider}: unknown provider; "
            f"choose one of {', '.join(providers.NAMES)}"
        )
        return
    if provider == "existing":
        # Its kubeconfig and context: `_cluster`.
        from clusters.errors import ClusterError
        from clusters.images import registry

        try:
            registry.from_env(host.environ)
        except ClusterError as exc:
            problems.append(f"--provider existing: {exc}")
        return
    if provider in DOCKER_TOOLS:
        for tool in DOCKER_TOOLS[provider]:
            if host.which(tool) is None:
                problems.append(
                    f"--provider {provider}: {tool} is not on PATH (the {provider} "
                    "provider runs its nodes in Docker containers)"
                )
        return
    if provider == "kind" and _kind_on_host(host, problems):
        return
    if host.euid() != 0:
        problems.append(
            f"--provider {provider}: {HOST_BUILT[provider]} and must run as "
            'root (sudo env "PATH=$PATH" ... keeps your Go and Python on PATH)'
        )
    for tool, why in LOCAL_TOOLS.items():
        if host.which(tool) is None:
            problems.append(f"--provider {provider}: {tool} is not on PATH: {why}")


def _cluster(values: Mapping[str, Any], host: Host, problems: list[str]) -> None:
    """The kubeconfig and context an existing cluster is reached through (`targeting`)."""
    context = values.get(targeting.CONTEXT)
    try:
        targeting.choose(values, context, targeting.Lookup.from_env(host.environ))
    except DataError as exc:
        problems.append(str(exc))


def _kind_on_host(host: Host, problems: list[str]) -> bool:
    """Check kind's WPC_KIND_* settings; True when host mode needs no root (checked here)."""
    from clusters.errors import ProviderError
    from clusters.kind.settings import KindSettings

    try:
        settings = KindSettings.from_env(environ=host.environ)
    except ProviderError as exc:
        problems.append(f"--provider kind: {exc}")
        return True
    if not settings.host_docker:
        return False
    for tool, why in KIND_HOST_TOOLS.items():
        if host.which(tool) is None:
            problems.append(f"--provider kind: {tool} is not on PATH: {why}")
    state = settings.work_dir.parent
    if host.euid() != 0 and not host.writable(state):
        problems.append(
            f"--provider kind: WPC_STATE_DIR {state} is not writable by this user "
            "(set WPC_STATE_DIR, e.g. to $HOME/.local/state/wpc)"
        )
    return True


def check(values: Mapping[str, Any], *, host: Host | None = None) -> profiles.Profile:
    """Check a run's options (the `wpc_*` dests); DataError listing every problem.

    `values` may also hold the launcher's own `--context` as `wpc_context`.
    """
    host = host or Host()
    problems: list[str] = []
    profile = _profile(values, problems)
    _features(values, problems)
    _layouts(values, profile, problems)
    _files(values, profile, problems)
    _provider(values, host, problems)
    _cluster(values, host, problems)
    if problems or profile is None:
        raise DataError(
            "the run was not started; nothing on this host was changed:\n  "
            + "\n  ".join(problems)
        )
    return profile
