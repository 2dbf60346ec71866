"""What preparing a run needs (`ClusterChoice`) and what it found (`RunContext`).

`RunContext` is made once per run by the `pytest_wpc_prepare_run` hook (in the
pytest-xdist controller, or the only process) and travels to the workers as
plain JSON in `workerinput`, so no worker repeats the cluster check or the
install.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from conformance.harness.instances import layouts


@dataclass(frozen=True)
class ClusterChoice:
    """Which cluster a run uses: a kubeconfig as it is, or one `clusters` made."""

    kubeconfig: Path | None
    """Use this cluster as it is; None asks `clusters` for `provider`/`cluster`'s."""
    provider: str
    cluster: str
    allow_foreign: bool
    """Run even without the WPC marker ConfigMap (--allow-foreign-cluster)."""

    @classmethod
    def of(cls, args: Any) -> ClusterChoice:
        """The cluster a parsed command line names.

        Read: `--kubeconfig`, `--provider`, `--cluster`, and
        `--allow-foreign-cluster` where the command has it.
        """
        return cls(
            kubeconfig=args.kubeconfig,
            provider=args.provider,
            cluster=args.cluster,
            allow_foreign=bool(getattr(args, "allow_foreign_cluster", False)),
        )

    def arguments(self) -> tuple[str, ...]:
        """The options naming this cluster, for a command a message tells the user to run."""
        if self.kubeconfig is not None:
            return ("--kubeconfig", str(self.kubeconfig))
        return ("--provider", self.provider, "--cluster", self.cluster)


@dataclass(frozen=True)
class RunContext:
    """Facts established once per run, shared with every worker."""

    session_id: str
    started_at: str
    kubeconfig: str
    kubectl: str
    instances: tuple[layouts.Instance, ...]
    environment: dict[str, Any] = field(default_factory=dict)
    """Kubernetes and runtime versions, nodes, marker data (for the report)."""
    images: dict[str, Any] = field(default_factory=dict)
    """Image reference -> digest as seen on the nodes (for the report)."""
    placeholders: dict[str, str] = field(default_factory=dict)
    """Common command placeholder values (for controller commands in tests)."""
    implementation_version: str = ""
    """What the profile's `describe` command printed (exactly what was installed), or ''."""
    unsupported_layouts: dict[str, str] = field(default_factory=dict)
    """Claimed layouts the build cannot run, with the reason (its `layouts` command)."""
    cluster: dict[str, str] = field(default_factory=dict)
    """Which cluster the run used: provider, context, server (the report's `cluster`)."""

    def instance(self, layout: str) -> layouts.Instance:
        """The controller instance serving `layout`."""
        for instance in self.instances:
            if instance.layout == layout:
                return instance
        raise KeyError(f"no controller instance for layout {layout!r} in this run")

    def to_json(self) -> dict[str, Any]:
        """Plain data for pytest-xdist's `workerinput`."""
        return {
            "session_id": self.session_id,
            "started_at": self.started_at,
            "kubeconfig": self.kubeconfig,
            "kubectl": self.kubectl,
            "instances": [i.to_json() for i in self.instances],
            "environment": self.environment,
            "images": self.images,
            "placeholders": self.placeholders,
            "implementation_version": self.implementation_version,
            "unsupported_layouts": self.unsupported_layouts,
            "cluster": self.cluster,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunContext:
        """Inverse of `to_json`."""
        return cls(
            session_id=data["session_id"],
            started_at=data["started_at"],
            kubeconfig=data["kubeconfig"],
            kubectl=data["kubectl"],
            instances=tuple(layouts.Instance.from_json(i) for i in data["instances"]),
            environment=dict(data.get("environment", {})),
            images=dict(data.get("images", {})),
            placeholders=dict(data.get("placeholders", {})),
            implementation_version=str(data.get("implementation_version", "")),
            unsupported_layouts=dict(data.get("unsupported_layouts", {})),
            cluster=dict(data.get("cluster", {})),
        )


@dataclass(frozen=True)
class Environment:
    """Process environment the suite reads (see docs/environment-variables.md)."""

    cache_dir: Path
    """Build caches outside the repo; the `{cache_dir}` command placeholder."""
    kubeconfig: Path | None = None
    """`KUBECONFIG`'s first file: plain pytest's cluster when none is named."""

    @classmethod
    def from_env(cls) -> Environment:
        """Read WPC_CACHE_DIR (default ~/.cache/wpc) and KUBECONFIG."""
        default = Path.home() / ".cache" / "wpc"
        # KUBECONFIG is a list (kubectl merges it); the suite's client reads one file.
        first = os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
        return cls(
            cache_dir=Path(os.environ.get("WPC_CACHE_DIR", str(default))),
            kubeconfig=Path(first).expanduser() if first else None,
        )
