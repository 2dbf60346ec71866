"""What one experiment run is pointed at, read from chaostoolkit's `configuration`.

Every experiment document declares the same `configuration` block: each key
comes from an environment variable with a default (chaostoolkit's `type: env`),
and `chaos run --var key=value` overrides it. Chaostoolkit resolves the
environment; this module only reads the resolved mapping, so nothing here
touches `os.environ` (see docs/environment-variables.md for the variables).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import contract
from conformance.errors import DataError
from conformance.harness.cluster.timeouts import checked_scale
from conformance.harness.instances import layouts
from conformance.implementations import variables

KEYS = (
    "wpc_provider",
    "wpc_cluster",
    "wpc_kubeconfig",
    "wpc_implementation",
    "wpc_profile_vars",
    "wpc_layout",
    "wpc_reports_dir",
    "wpc_instance",
    "wpc_timeout_scale",
)
"""The configuration keys every experiment declares."""


@dataclass(frozen=True)
class ChaosSettings:
    """One experiment run's target; each default says why it is what it is."""

    provider: str = "local"
    """The `clusters` provider that made the cluster (node faults need it)."""
    cluster: str = "wpc"
    """The cluster's name: `make cluster-up` makes `wpc`."""
    kubeconfig: str = ""
    """A kubeconfig to use as it is; empty asks the provider for the cluster's."""
    implementation: str = "reference"
    """The implementation profile (a bundled name or a path)."""
    profile_vars: tuple[tuple[str, str], ...] = ()
    """The profile's `variables` for this run (`fault=leave-finalizer,...`)."""
    layout: str = contract.LEGACY
    """The pod layout the experiment runs in."""
    reports_dir: Path = Path("reports")
    """Where the ChaosReport, histories and timelines go."""
    instance: str = "auto"
    """`auto`: install the chaos instance if absent and remove it afterwards;
    `external`: the caller (the pytest entry) installed it and removes it."""
    timeout_scale: float = 1.0
    """Multiplies every named timeout (a slow cluster needs more)."""

    @classmethod
    def from_configuration(cls, configuration: Mapping[str, Any]) -> ChaosSettings:
        """Read the resolved chaostoolkit configuration; ValueError names a bad key."""
        layout = layouts.parse_layout(
            str(configuration.get("wpc_layout") or contract.LEGACY), source="wpc_layout"
        )
        try:
            scale = checked_scale(
                float(configuration.get("wpc_timeout_scale") or 1.0),
                "wpc_timeout_scale",
            )
        except DataError as exc:
            raise ValueError(str(exc)) from exc
        instance = str(configuration.get("wpc_instance") or "auto")
        if instance not in ("auto", "external"):
            raise ValueError(f"wpc_instance must be auto or external, not {instance!r}")
        return cls(
            provider=str(configuration.get("wpc_provider") or "local"),
            cluster=str(configuration.get("wpc_cluster") or "wpc"),
            kubeconfig=str(configuration.get("wpc_kubeconfig") or ""),
            implementation=str(configuration.get("wpc_implementation") or "reference"),
            profile_vars=parse_vars(str(configuration.get("wpc_profile_vars") or "")),
            layout=layout,
            reports_dir=Path(str(configuration.get("wpc_reports_dir") or "reports")),
            instance=instance,
            timeout_scale=scale,
        )


def parse_vars(text: str) -> tuple[tuple[str, str], ...]:
    """`a=1,b=2` -> (("a", "1"), ("b", "2")); ValueError naming the key and the item.

    The suite's one parser of profile variables, with a ValueError like every other
    bad key of the configuration.
    """
    try:
        return tuple(variables.parse_joined(text, source="wpc_profile_vars").items())
    except DataError as exc:
        raise ValueError(str(exc)) from exc
