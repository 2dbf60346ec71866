"""The run object: everything one pytest process knows about the conformance run.

One typed object instead of a stash key per fact. `pytest_configure` makes it
when the suite is active and registers it as a plugin named `wpc-run`, the way
pytest-xdist registers its session object; an inactive plugin registers
nothing, so `get()` returning None is what "inactive" means. Per-item facts
stay in typed `item.stash` keys (`conformance.plugin.state.keys`).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest

from conformance import contract
from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from conformance.plugin.state.markers import Declaration
from conformance.plugin.state.settings import RunSettings
from conformance.report.items.records import Results
from conformance.report.runs.documents import ScenarioDiff
from conformance.spec import Spec

PLUGIN_NAME = "wpc-run"


@dataclass
class Run:
    """The run's settings, spec, profile, claims, timeouts, cluster and results."""

    settings: RunSettings
    spec: Spec
    profile: profiles.Profile
    claimed: frozenset[str]
    """Features the run treats as claimed: Core ones, plus --features or the profile's."""
    timeouts: Timeouts
    """The named timeouts, already scaled by --timeout-scale."""
    mutation_score: dict[str, Any] | None = None
    """The report's `mutationScore`, read from --negative-controls (None: null)."""
    historical_score: dict[str, Any] | None = None
    """The report's `historicalMutationScore`, read from --history-result (None: null)."""
    context: RunContext | None = None
    """What preparing the run found; None until prepared (or with --collect-only)."""
    results: Results = field(default_factory=Results)
    declarations: dict[str, Declaration] = field(default_factory=dict)
    """Every collected suite test's declaration by scenario, for the coverage ledger."""
    diffs: list[ScenarioDiff] = field(default_factory=list)
    """The layout comparisons of this run (reporting process)."""
    leaks: list[str] = field(default_factory=list)
    interrupted_by: str | None = None
    """What stopped the run early: a signal's name (`conformance.plugin.reporting.interrupting`)
    or pytest's reason; None while nothing has."""
    interruption: dict[str, Any] | None = None
    """The report's `interrupted` block, made at session finish (reporting process)."""
    written: list[str] = field(default_factory=list)
    """Paths of the reports this run wrote, for the terminal summary."""
    durations: dict[str, float] = field(default_factory=dict)
    """Expected seconds per item key, from --durations-file (`plugin.selection.arranging`)."""
    selection: str | None = None
    """The whole selection's fingerprint, before --shard took its part."""
    _clients: kube.Clients | None = None

    def adopt(self, context: RunContext) -> None:
        """Take the prepared run's context, and claim only the layouts the build runs.

        The profile's `layouts` command may have said that the build cannot run a
        layout the file claims (upstream v4.0.x has no init-less layout): that
        layout and its feature are then not claimed, in every process alike, so
        its tests are skipped as not claimed rather than failed.
        """
        self.context = context
        if context.unsupported_layouts:
            self.profile = profiles.without_layouts(
                self.profile, context.unsupported_layouts
            )
            self.claimed = self.claimed - {
                contract.LAYOUT_FEATURES[layout]
                for layout in context.unsupported_layouts
            }

    def prepared(self) -> RunContext:
        """The run's context; HarnessError when the run was not prepared."""
        if self.context is None:
            raise HarnessError(
                "the run was not prepared (no cluster): cannot use cluster fixtures"
            )
        return self.context

    def clients(self) -> kube.Clients:
        """This process's API clients: one connection per process."""
        if self._clients is None:
            self._clients = kube.connect(self.prepared().kubeconfig)
        return self._clients


def register(config: pytest.Config, run: Run) -> None:
    """Make `run` this process's run object."""
    config.pluginmanager.register(run, PLUGIN_NAME)


def get(config: pytest.Config) -> Run | None:
    """The run object, or None when the suite is not active."""
    run = config.pluginmanager.get_plugin(PLUGIN_NAME)
    return run if isinstance(run, Run) else None


def of(config: pytest.Config) -> Run:
    """The run object of an active suite."""
    run = get(config)
    if run is None:
        raise HarnessError("the WPC conformance suite is not active in this run")
    return run
