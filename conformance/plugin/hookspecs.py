"""Hooks the conformance plugin adds; a seam for tests and unusual setups."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conformance.harness.cluster.timeouts import Timeouts
    from conformance.implementations import profiles
    from conformance.implementations.contexts import RunContext
    from conformance.plugin.state.settings import RunSettings


@pytest.hookspec(firstresult=True)
def pytest_wpc_prepare_run(
    config: pytest.Config,
    settings: RunSettings,
    profile: profiles.Profile,
    timeouts: Timeouts,
) -> RunContext | None:
    """Find and check the cluster, install the implementation, return the run's context.

    Called once per run, in the pytest-xdist controller or the only process.
    The default (`conformance.implementations.preparing.prepare_run`) talks to a real cluster;
    the plugin's own tests implement this hook to run without one.
    """
