"""A run stopped by SIGINT, SIGTERM or SIGHUP tears down, sweeps and reports (issue 29).

We test these aspects with real processes and real signals: the launcher's
forwarding (`plumbing.forwarding`, what `wpc run` runs pytest with) runs a real
pytest session of the suite's plugin on three tests, with the fake cluster of
the plugin's tests and API clients that note the sweep. The signal reaches the
launcher while the second test runs, and the launcher passes it on to pytest's
group, as a cancelled CI job, `timeout`, a closed terminal or Ctrl-C does:

- once: the test's fixture is torn down, then the end-of-run sweep runs, and
  the report (schema-valid, beside its HTML page) says `interrupted` by that
  signal, that the first test ran, that the second was cut short (and is not
  counted), and how many tests were collected; the run exits 2, as pytest does
  when interrupted, and neither its result nor its per-layout results is a
  success;
- a first signal during a test's teardown lets that teardown finish (the test
  counts) and stops the run after it;
- twice in a row, the second while the fixture's teardown is still running:
  the second signal is noted and does not cut the teardown short, and all of
  the above holds;
- under pytest-xdist, the controller waits for its worker's teardown, which
  takes longer than pytest-xdist waits before it kills a worker, and only then
  sweeps.

Before the fix, SIGTERM and SIGHUP killed pytest at once (exit 143, 129: no
teardown, no sweep, no report), a second SIGINT aborted the teardown, and an
interrupted report had no mark and swept before the teardown; pytest-xdist
killed a worker still tearing down 10 s after the interruption.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.report.runs import documents
from tests.conformance.conftest import FAKE_CLUSTER_CONFTEST
from tests.conformance.conftest import alone
from tests.conformance.conftest import wait_while_running
from tests.conformance.conftest import wpc_args

FINISHED_TIMEOUT = 60.0
"""From the last signal to pytest's exit: teardown, sweep and report."""
INTERRUPTED = 2
"""pytest's exit status for an interrupted run."""

LAUNCHER = (
    "import sys; from plumbing.forwarding import run_forwarding; "
    "sys.exit(run_forwarding(sys.argv[1:]))"
)

# The sweep lists the session's namespaces first: noting that call (and whether
# the teardown had finished by then) shows the sweep ran, and in which order.
SWEEP_NOTING_CONFTEST = textwrap.dedent(
    """
    from pathlib import Path
    from types import SimpleNamespace

    from conformance.harness.cluster import kube

    HERE = Path(__file__).parent


    class _Core:
        def list_namespace(self, label_selector):
            done = (HERE / "torn-down").exists()
            (HERE / "swept").write_text("after teardown" if done else "before teardown")
            return SimpleNamespace(items=[])


    kube.connect = lambda kubeconfig: SimpleNamespace(core=_Core())
    """
)

# One scenario per file (the marker's rule), collected in this order.
GUARDED = textwrap.dedent(
    """
    from pathlib import Path

    import pytest

    from plumbing.waiting import NotYet
    from plumbing.waiting import until

    HERE = Path(__file__).parent
    WAIT = 300.0  # longer than the test waits for anything here


    @pytest.fixture
    def guarded():
        yield
        (HERE / "tearing-down").write_text("")
        until(
            lambda: (HERE / "release").exists() or NotYet("not released"),
            timeout=WAIT,
            interval=0.05,
            describe="the test releases the teardown",
        )
        (HERE / "torn-down").write_text("")


    @pytest.mark.conformance(short_name="Beta", clauses=["WPC-POD-001"])
    def test_beta(guarded):
        (HERE / "running").write_text("")
        if (HERE / "body-ends").exists():
            return
        until(lambda: NotYet("not signalled"), timeout=WAIT, interval=0.05,
              describe="a signal")
    """
)
TESTS = {
    "test_alpha.py": textwrap.dedent(
        """
        import pytest

        @pytest.mark.conformance(short_name="Alpha", clauses=["WPC-FINALIZER-001"])
        def test_alpha():
            pass
        """
    ),
    "test_beta.py": GUARDED,
    "test_gamma.py": textwrap.dedent(
        """
        import pytest

        @pytest.mark.conformance(short_name="Gamma", clauses=["WPC-POD-002"])
        def test_gamma():
            pass
        """
    ),
}
FIRST = "test_alpha.py::test_alpha[legacy]"
SECOND = "test_beta.py::test_beta[legacy]"


def _prepare(
    tmp_path: Path, *extra: str, conftest: str = "", ini: str = ""
) -> tuple[list[str], Path, Path]:
    """The launcher's command line, the report it will write, its output's file."""
    (tmp_path / "conftest.py").write_text(
        FAKE_CLUSTER_CONFTEST + SWEEP_NOTING_CONFTEST + conftest
    )
    for name, text in TESTS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pytest.ini").write_text(f"[pytest]\n{ini}")  # not the repository's
    report = tmp_path / "reports" / "conformance-fake.yaml"
    argv = [
        *(sys.executable, "-c", LAUNCHER),
        *(sys.executable, "-m", "pytest", str(tmp_path)),
        *("-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path)),
        *wpc_args("--wpc-layout", "legacy", "--wpc-report", str(report), *extra),
    ]
    return argv, report, tmp_path / "output.log"


def _signal_then_release(
    proc: subprocess.Popen[bytes], log: Path, signum: signal.Signals, noted: str
) -> None:
    """Signal the launcher's group; once the output says `noted`, release the teardown."""
    os.killpg(proc.pid, signum)  # the launcher's group: pytest has its own
    wait_while_running(
        proc, log, lambda: noted in log.read_text(), f"the output says {noted!r}"
    )
    (log.parent / "release").write_text("")


def _run(
    tmp_path: Path,
    interrupt: Callable[[subprocess.Popen[bytes], Path], None],
    *extra: str,
    conftest: str = "",
    ini: str = "",
) -> tuple[int, str, dict[str, Any]]:
    """Start the run, interrupt it once the second test runs; its status, output, report."""
    argv, report, log = _prepare(tmp_path, *extra, conftest=conftest, ini=ini)
    with alone(argv, log, cwd=tmp_path) as proc:
        wait_while_running(
            proc, log, (tmp_path / "running").exists, "the second test is running"
        )
        interrupt(proc, log)
        status = proc.wait(timeout=FINISHED_TIMEOUT)
    output = log.read_text()
    assert status == INTERRUPTED, f"exit {status}; output tail:\n{output[-3000:]}"
    assert (tmp_path / "torn-down").exists(), output[-3000:]
    assert (tmp_path / "swept").read_text() == "after teardown"
    doc: dict[str, Any] = yaml.safe_load(report.read_text())
    documents.validate(doc)
    assert [t["nodeid"] for t in doc["tests"]] == doc["interrupted"]["ran"]
    assert doc["result"] == "interrupted"
    assert {r["extended"]["result"] for r in doc["results"]} == {"interrupted"}
    assert "INTERRUPTED (" in report.with_suffix(".html").read_text()
    return status, output, doc


def _interrupted_by(reason: str) -> dict[str, Any]:
    return {"reason": reason, "ran": [FIRST], "unfinished": [SECOND], "collected": 3}


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.slow
@pytest.mark.parametrize("times", [1, 2], ids=["once", "twice"])
@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signalled_run_tears_down_sweeps_and_reports_interrupted(
    tmp_path: Path, signum: signal.Signals, times: int
) -> None:
    def interrupt(proc: subprocess.Popen[bytes], log: Path) -> None:
        os.killpg(proc.pid, signum)  # the launcher's group: pytest has its own
        if times == 1:
            (tmp_path / "release").write_text("")
            return
        wait_while_running(
            proc,
            log,
            (tmp_path / "tearing-down").exists,
            "the interrupted test's fixture is being torn down",
        )
        _signal_then_release(proc, log, signum, f"received {signum.name} again")

    _, output, doc = _run(tmp_path, interrupt)
    assert doc["interrupted"] == _interrupted_by(signum.name)
    assert f"INTERRUPTED ({signum.name}): 1 of 3 tests ran" in output


@pytest.mark.slow
def test_a_first_signal_during_a_teardown_lets_it_finish_then_stops(
    tmp_path: Path,
) -> None:
    (tmp_path / "body-ends").write_text("")  # the second test's body passes

    def interrupt(proc: subprocess.Popen[bytes], log: Path) -> None:
        wait_while_running(
            proc,
            log,
            (tmp_path / "tearing-down").exists,
            "the second test's fixture is being torn down",
        )
        _signal_then_release(
            proc, log, signal.SIGTERM, "stopping once this clean-up is done"
        )

    _, output, doc = _run(tmp_path, interrupt)
    # The second test ended, teardown and all: it counts; the third never started.
    assert doc["interrupted"] == {
        "reason": "SIGTERM",
        "ran": [FIRST, SECOND],
        "unfinished": [],
        "collected": 3,
    }
    assert "INTERRUPTED (SIGTERM): 2 of 3 tests ran, 0 cut short" in output


# An old-style hookwrapper (allure-pytest's, here the conftest's) that a signal
# interrupts after its yield: pluggy warns before it re-raises, and under the
# repository's `filterwarnings = error` that warning replaced the KeyboardInterrupt.
SIGNALLED_IN_A_WRAPPER = textwrap.dedent(
    """
    import pytest

    from plumbing.waiting import NotYet
    from plumbing.waiting import until


    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(item):
        yield
        if item.name.startswith("test_beta"):
            (HERE / "running").write_text("")
            until(lambda: NotYet("not signalled"), timeout=300.0, interval=0.05,
                  describe="a signal")
    """
)


@pytest.mark.slow
def test_a_signal_in_an_old_style_wrappers_teardown_still_cuts_the_test_short(
    tmp_path: Path,
) -> None:
    def interrupt(proc: subprocess.Popen[bytes], log: Path) -> None:
        os.killpg(proc.pid, signal.SIGTERM)
        (tmp_path / "release").write_text("")

    _, output, doc = _run(
        tmp_path,
        interrupt,
        conftest=SIGNALLED_IN_A_WRAPPER,
        ini="filterwarnings = error\n",
    )
    # Before the fix: the test counted as run, with a harness error
    # (PluggyTeardownRaisedWarning), and nothing was cut short.
    assert doc["interrupted"] == _interrupted_by("SIGTERM"), output[-3000:]
    assert "INTERRUPTED (SIGTERM): 1 of 3 tests ran, 1 cut short" in output


# pytest-xdist kills workers still running 10 s after it ends them; here 3 s, so
# that its kill would come before execnet's SIGINT to a worker still busy 5 s
# into that ending, which the test waits for before it releases the teardown.
SHORT_XDIST_KILL = textwrap.dedent(
    """
    from xdist.workermanage import NodeManager

    NodeManager.EXIT_TIMEOUT = 3
    """
)


@pytest.mark.slow
def test_under_xdist_a_workers_teardown_is_waited_for(tmp_path: Path) -> None:
    def interrupt(proc: subprocess.Popen[bytes], log: Path) -> None:
        # The worker, still tearing down, notes execnet's SIGINT.
        _signal_then_release(proc, log, signal.SIGTERM, "received SIGINT again")

    _, output, doc = _run(tmp_path, interrupt, "-n", "1", conftest=SHORT_XDIST_KILL)
    assert "waiting up to 600 s for the workers' teardown" in output
    # The dealer hands a worker the shortest item behind its first one (a worker
    # starts an item only once it holds the next), so Gamma may run before Beta:
    # which items ran is the scheduler's; that Beta is the unfinished one is ours.
    interrupted = doc["interrupted"]
    assert FIRST in interrupted["ran"]
    assert SECOND not in interrupted["ran"]
    assert {**interrupted, "ran": [FIRST]} == _interrupted_by("SIGTERM")
