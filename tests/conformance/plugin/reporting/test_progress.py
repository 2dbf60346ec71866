"""We test these aspects of the run's progress lines (no cluster, no real time):

- the heartbeat says how many tests are done and failed, the elapsed time, and
  the longest-running tests first;
- while the run is prepared, the command runner's INFO lines are echoed with the
  elapsed time, and the loggers are restored afterwards;
- end to end (pytester), a run with the suite active prints heartbeat lines
  when the interval is short, in process, and in a child process under
  pytest-xdist, whose controller collects nothing (the beat once never started
  there: a whole `make conformance` printed none).
"""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest

from conformance.plugin.reporting import progress
from tests.conformance.conftest import wpc_args

REPO = Path(__file__).resolve().parents[4]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Report:
    def __init__(self, nodeid: str, when: str, failed: bool = False) -> None:
        self.nodeid, self.when, self.failed = nodeid, when, failed


def test_heartbeat_counts_and_names_the_longest_running_tests():
    clock = Clock()
    beat = progress.Heartbeat(lambda line: None, clock=clock)
    beat.total = 5
    beat.pytest_runtest_logstart("t.py::test_a[legacy]", None)
    clock.now += 40
    beat.pytest_runtest_logstart("t.py::test_b[initless]", None)
    beat.pytest_runtest_logstart("t.py::test_c[legacy]", None)
    beat.pytest_runtest_logreport(Report("t.py::test_c[legacy]", "call", failed=True))
    beat.pytest_runtest_logreport(Report("t.py::test_c[legacy]", "teardown"))
    clock.now += 25
    assert beat.line() == (
        "wpc [1m05s] 1/5 tests done, 1 failed; running: "
        "test_a[legacy] (1m05s), test_b[initless] (25s)"
    )


def test_echo_shows_command_lines_then_restores_the_logger():
    lines: list[str] = []
    log = logging.getLogger("plumbing.commands")
    before = log.level
    with progress.echo(lines.append):
        log.info("Still running go build after %s: %s", "1m20s", "compiling")
    log.info("not echoed")
    assert len(lines) == 1
    assert lines[0].startswith("wpc [0s] Still running go build after 1m20s")
    assert log.level == before


def test_a_run_prints_heartbeat_lines(suite: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    suite.makepyfile(
        test_slow=textwrap.dedent(
            """
            import threading
            import pytest

            @pytest.mark.conformance(short_name="Slow", clauses=["WPC-POD-001"])
            def test_slow():
                threading.Event().wait(0.3)  # the test is slow, not the plugin
            """
        )
    )
    result = suite.runpytest(*wpc_args("--wpc-layout", "legacy", "-s"))
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["wpc [[]*[]] 0/1 tests done, 0 failed; running: test_slow?legacy?*"]
    )


FAST_BEAT_CONFTEST = (
    "\nfrom conformance.plugin.reporting import progress\nprogress.INTERVAL = 0.05\n"
)
"""Appended to the fake cluster's conftest: a child process cannot be monkeypatched."""


def test_an_xdist_run_prints_heartbeat_lines(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    conftest = suite.path / "conftest.py"
    conftest.write_text(conftest.read_text() + FAST_BEAT_CONFTEST)
    suite.makepyfile(
        test_slow=textwrap.dedent(
            """
            import threading
            import pytest

            @pytest.mark.conformance(short_name="Slow", clauses=["WPC-POD-001"])
            def test_slow():
                threading.Event().wait(1.0)  # the test is slow, not the plugin
            """
        )
    )
    result = suite.runpytest_subprocess(*wpc_args("--wpc-layout", "legacy", "-n", "1"))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["wpc [[]*[]] 0/1 tests done, 0 failed; running: *"])
