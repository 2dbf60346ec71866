"""A heartbeat line at least every 20 s in the project's cluster stages (#12).

Why: pytest prints nothing while a test runs, and `make test`'s cluster stages hold
tests of minutes (a kind cluster made and deleted, a negative control's suite run, a
chaos experiment), so a CI log could not tell slow from hung. The suite's own
heartbeat (`conformance.plugin.reporting.progress.Heartbeat`: tests done, failed, the elapsed
time and the longest-running tests) is reused as it is.

Scope: a session that collected at least one test with a `SLOW_MARKERS` marker, in
the process that reports (not an xdist worker). The unit stage prints a dot every
fraction of a second and gets no heartbeat.
"""

from __future__ import annotations

import pytest

from conformance.plugin.reporting import progress

SLOW_MARKERS = frozenset({"cluster", "kind", "negative", "chaos", "stress"})
"""Markers of tests that run on a real cluster, each for up to minutes."""

NAME = "wpc-tests-heartbeat"


def wants_heartbeat(items: list[pytest.Item]) -> bool:
    """Whether any collected test carries one of the `SLOW_MARKERS`."""
    return any(
        marker.name in SLOW_MARKERS for item in items for marker in item.iter_markers()
    )


class Launcher:
    """Starts the heartbeat once the collected tests show it is wanted."""

    def __init__(self, config: pytest.Config) -> None:
        # Made at configure time, while pytest's capture is suspended (progress.Writer).
        self.write = progress.writer(config)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not wants_heartbeat(session.items):
            return
        beat = progress.Heartbeat(self.write)
        session.config.pluginmanager.register(beat, NAME)
        beat.total = len(session.items)
        beat.start()


def pytest_configure(config: pytest.Config) -> None:
    # xdist workers run tests, the process that reports writes the console.
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Launcher(config), "wpc-tests-heartbeat-launcher")
