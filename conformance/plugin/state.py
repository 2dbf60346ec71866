"""Typed stash keys: all of the plugin's state lives on `config.stash` / `item.stash`."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness import kube
from conformance.harness.observations import Observations
from conformance.harness.timeouts import Timeouts
from conformance.implementations import profiles
from conformance.implementations.contexts import RunContext
from conformance.plugin.markers import Declaration
from conformance.plugin.settings import RunSettings
from conformance.report.documents import ScenarioDiff
from conformance.report.results import Results

# config.stash
ACTIVE = pytest.StashKey[bool]()
SETTINGS = pytest.StashKey[RunSettings]()
SPEC = pytest.StashKey[Any]()
"""The loaded `conformance.spec.Spec`."""
PROFILE = pytest.StashKey[profiles.Profile]()
CLAIMED = pytest.StashKey[frozenset[str]]()
"""Features the run treats as claimed: --features, else the profile's."""
TIMEOUTS = pytest.StashKey[Timeouts]()
CONTEXT = pytest.StashKey[RunContext]()
RESULTS = pytest.StashKey[Results]()
DECLARATIONS = pytest.StashKey[dict[str, Declaration]]()
"""Every collected suite test's declaration by scenario, for the coverage ledger."""
LEAKS = pytest.StashKey[list[str]]()
MUTATION_SCORE = pytest.StashKey[dict[str, Any]]()
"""The report's `mutationScore`, read from --negative-controls (absent: null)."""
FINISHED = pytest.StashKey[str]()

# item.stash
DECLARATION = pytest.StashKey[Declaration]()
LAYOUT = pytest.StashKey[str]()
SUPPORT = pytest.StashKey[str]()
OBSERVATIONS = pytest.StashKey[Observations]()
NAMESPACE = pytest.StashKey[str]()
STARTED = pytest.StashKey[float]()
"""Wall-clock start of the test (time.time()), for the controller-log window."""
CLIENTS = pytest.StashKey[kube.Clients]()
"""Cached `kube.Clients` of this process."""
DIFFS = pytest.StashKey[list[ScenarioDiff]]()
"""The layout comparisons (`reports.ScenarioDiff`) of this run."""
WRITTEN = pytest.StashKey[list[str]]()
"""Paths of the reports this run wrote, for the terminal summary."""
WORKERINPUT_KEY = "wpc_run_context"
"""The `workerinput` key carrying the RunContext to pytest-xdist workers."""
