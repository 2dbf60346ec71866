"""What the plugin keeps on each item, in typed `item.stash` keys.

Run-wide facts live on the run object (`conformance.plugin.state.runs`); these are
the per-test ones: the validated declaration, the layout, the recorder of
observations, the namespace and the start time.
"""

from __future__ import annotations

import pytest

from conformance.harness.cluster.timing import Phases
from conformance.harness.workload.observations import Observations
from conformance.plugin.state.markers import Declaration

DECLARATION = pytest.StashKey[Declaration]()
LAYOUT = pytest.StashKey[str]()
TEST_ID = pytest.StashKey[str]()
"""The item's stable identity (`conformance.report.items.identity`), e.g. `HelloWorld[legacy]`."""
SUPPORT = pytest.StashKey[str]()
""""Core", or "Extended" when one of the test's features is."""
OBSERVATIONS = pytest.StashKey[Observations]()
NAMESPACE = pytest.StashKey[str]()
STARTED = pytest.StashKey[float]()
"""Wall-clock start of the test (time.time()), for the controller-log window."""
PHASES = pytest.StashKey[Phases]()
"""What the harness timed while the item ran (`conformance.harness.cluster.timing`)."""

WORKERINPUT_KEY = "wpc_run_context"
"""The `workerinput` key carrying the RunContext to pytest-xdist workers."""
