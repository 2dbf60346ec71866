"""What a run was asked to do: `RunSettings`, validated from the options once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from conformance.implementations.contexts import ClusterChoice
from conformance.plugin.state.scheduling import Shard
from conformance.report.runs.durations import DEFAULT_PATH as DEFAULT_DURATIONS


@dataclass(frozen=True)
class RunSettings:
    """The run's options, validated."""

    implementation: str
    """Profile name (bundled) or path to a profile file."""
    layouts: tuple[str, ...]
    """Layouts selected with --layout; items of other layouts are deselected."""
    kubeconfig: Path | None
    provider: str
    cluster_name: str
    features: frozenset[str] | None
    """--features; None means "what the profile claims"."""
    report: Path | None
    junit: Path | None
    timeout_scale: float
    allow_foreign_cluster: bool
    skip_install: bool
    spec_path: Path | None
    """None means the spec shipped with the suite."""
    divergences_path: Path
    require_must_coverage: bool
    reports_dir: Path
    """Where logs of profile commands and failure evidence go."""
    profile_vars: Mapping[str, str] = field(default_factory=dict)
    """--profile-var values for the profile's declared `variables`."""
    history_result: Path | None = None
    """--history-result: the HistoryResult whose historical score the report carries."""
    negative_controls: Path | None = None
    """--negative-controls: the NegativeControlsReport whose score the report carries."""
    shard: Shard | None = None
    """--shard I/N: run only this shard of the selection (None: all of it)."""
    durations_path: Path = DEFAULT_DURATIONS
    """--durations-file: expected item durations (order, shard balance)."""
    update_durations: bool = False
    """--update-durations: fold this run's item durations into `durations_path`."""

    def cluster_choice(self) -> ClusterChoice:
        """The cluster part of the settings, as preparing a run takes it."""
        return ClusterChoice(
            kubeconfig=self.kubeconfig,
            provider=self.provider,
            cluster=self.cluster_name,
            allow_foreign=self.allow_foreign_cluster,
        )
