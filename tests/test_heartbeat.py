"""We test the project's own tests' heartbeat (tests/heartbeat.py), end to end with
pytester in a child process, so pytest's capture of the running test's output is real:

- a session holding a test marked `cluster` prints heartbeat lines while that test
  runs, on the console, not into the test's captured output (where they once went);
- a session of unmarked tests (the unit stage) prints none.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

CONFTEST = """
from conformance.plugin.reporting import progress

progress.INTERVAL = 0.05  # a child process cannot be monkeypatched
"""

SLOW_TEST = """
import threading
import pytest

@pytest.mark.{marker}
def test_slow():
    threading.Event().wait(1.0)  # the test is slow, not the plugin
"""


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, marker: str
) -> pytest.RunResult:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    pytester.makeini("[pytest]\nmarkers =\n    cluster: c\n    slow: s\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_slow=textwrap.dedent(SLOW_TEST.format(marker=marker)))
    return pytester.runpytest_subprocess(
        "-p", "tests.heartbeat", "-p", "no:cacheprovider"
    )


def test_a_cluster_session_beats_past_the_capture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(pytester, monkeypatch, "cluster")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["wpc [[]*[]] 0/1 tests done, 0 failed; running: test_slow (*)"]
    )


def test_a_unit_session_stays_quiet(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(pytester, monkeypatch, "slow")
    result.assert_outcomes(passed=1)
    assert "tests done" not in result.stdout.str()
