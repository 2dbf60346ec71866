"""We test the project's own tests' heartbeat (tests/heartbeat.py), end to end with pytester:

- a session holding a test marked `cluster` prints heartbeat lines while that test runs;
- a session of unmarked tests (the unit stage) prints none.
"""

from __future__ import annotations

import textwrap

import pytest

from conformance.plugin import progress

SLOW_TEST = """
import threading
import pytest

@pytest.mark.{marker}
def test_slow():
    threading.Event().wait(0.3)  # the test is slow, not the plugin
"""


def run(pytester: pytest.Pytester, marker: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\nmarkers =\n    cluster: c\n    slow: s\n")
    pytester.makepyfile(test_slow=textwrap.dedent(SLOW_TEST.format(marker=marker)))
    return pytester.runpytest("-p", "tests.heartbeat", "-p", "no:cacheprovider")


def test_a_cluster_session_beats(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    result = run(pytester, "cluster")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["wpc [[]*[]] 0/1 tests done, 0 failed; running: test_slow (*)"]
    )


def test_a_unit_session_stays_quiet(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    result = run(pytester, "slow")
    result.assert_outcomes(passed=1)
    assert "tests done" not in result.stdout.str()
