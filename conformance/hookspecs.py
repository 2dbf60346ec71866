"""Hooks the conformance plugin adds; a seam for tests and unusual setups."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conformance import implementations
    from conformance.settings import RunContext
    from conformance.settings import RunSettings
    from conformance.timeouts import Timeouts


@pytest.hookspec(firstresult=True)
def pytest_wpc_prepare_run(
    config: pytest.Config,
    settings: RunSettings,
    profile: implementations.Profile,
    timeouts: Timeouts,
) -> RunContext | None:
    """Find and check the cluster, install the implementation, return the run's context.

    Called once per run, in the pytest-xdist controller or the only process.
    The default (`conformance.preparing.prepare_run`) talks to a real cluster;
    the plugin's own tests implement this hook to run without one.
    """
