"""Shared helpers for the providers that drive an external CLI (kind, k3d)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

from clusters.access import marker
from clusters.errors import ProviderError
from clusters.errors import RunError
from plumbing import commands


def host_is_cgroup_v1(root: Path = Path("/sys/fs/cgroup")) -> bool:
    """True on a cgroup v1 (or hybrid) host: v2 has cgroup.controllers at the root.

    Both providers' nodes run kubelet 1.36, which refuses such a host unless
    their config says otherwise.
    """
    return not (root / "cgroup.controllers").exists()


def require_cli(tool: str) -> str:
    """Path of `tool` on PATH, or a ProviderError saying why it is needed."""
    path = shutil.which(tool)
    if path is None:
        raise ProviderError(
            f"{tool} is not on PATH. The {tool} provider needs {tool} and a Docker engine with "
            "access to an image registry; on machines without them use --provider local."
        )
    return path


def run_cli(command: Sequence[str], *, log_path: Path) -> None:
    """Run a provider CLI command with its output logged."""
    require_cli(command[0])
    commands.run(command, log_path=log_path, error=RunError)


def apply_marker(
    *,
    kubectl: str,
    kubeconfig: Path,
    provider: str,
    name: str,
    details: Mapping[str, str] | None = None,
) -> None:
    """Create the WPC marker ConfigMap in a freshly made cluster."""
    import json

    body = json.dumps(marker.manifest(provider=provider, name=name, details=details))
    commands.capture(
        [kubectl, "--kubeconfig", str(kubeconfig), "apply", "-f", "-"],
        stdin=body,
        error=RunError,
    )


def write_kubeconfig(command: Sequence[str], path: Path) -> Path:
    """Write the kubeconfig a CLI prints on stdout to `path`."""
    require_cli(command[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(commands.capture(command, error=RunError))
    path.chmod(0o600)
    return path
