"""The chaos suite's pytest markers, for a run without the project's config.

`wpc chaos run` from an installed wheel has no pyproject.toml to register the
markers `chaos.suite.experiments` carries; the runner loads this plugin
(`-p chaos.suite.markers`) so they are known wherever the suite runs.
"""

from __future__ import annotations

import pytest

MARKERS = (
    "cluster: needs a cluster",
    "chaos: a chaos experiment, run with `chaos run`",
    "node_fault: a chaos experiment whose fault hits the whole node: runs alone",
)


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's markers."""
    for line in MARKERS:
        config.addinivalue_line("markers", line)
