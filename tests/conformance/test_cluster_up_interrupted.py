"""A signal while `wpc run` brings the cluster up lets `clusters up` roll back (issue 29).

We test these aspects with a real launcher process (`python -m conformance run`'s
entry point, with `clusters up` replaced by `tests.slowchild`, which rolls back
on SIGINT or SIGTERM until the test lets it finish) and real signals:

- Ctrl-C (SIGINT to the launcher's process group, as a terminal sends it),
  SIGTERM or SIGHUP, once or twice in a row, reaches the stand-in once, as
  SIGINT, through the launcher, and its rollback finishes; the launcher then
  says in one line that it was interrupted, prints no traceback, runs no tests
  and exits 2, as an interrupted pytest does;
- a Ctrl-C while no child runs (the checks before `clusters up`) gives the
  same one line and exit 2, not a KeyboardInterrupt traceback.

Before the fix, `subprocess.run` killed `clusters up` 0.25 s into its
rollback and the launcher died of a KeyboardInterrupt traceback (or of SIGTERM,
SIGHUP), and a SIGHUP passed on as it came killed `clusters up` outright.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.conformance.conftest import alone
from tests.conformance.conftest import wait_while_running
from tests.slowchild import SLOW_CHILD
from wpc import suite_cli as cli
from wpc.run import preflight

FINISHED_TIMEOUT = 60.0
INTERRUPTED = 2
"""pytest's exit status for an interrupted run, which the launcher takes over."""

LAUNCHER = """
import sys
from pathlib import Path
from wpc import suite_cli as cli
from wpc.run import launching
from wpc.run import preflight

here = Path(sys.argv[1])
launching.cluster_commands = lambda request: [
    [sys.executable, "-c", sys.argv[2], str(here), "release"]
]
launching.pytest_command = lambda request: [
    sys.executable, "-c", f"open({str(here / 'pytest-ran')!r}, 'w')"
]
preflight.check = lambda values: None  # the host's checks are not this test's
sys.exit(cli.main(
    ["run", "--implementation", "reference", "--reports-dir", str(here / "reports")]
))
"""

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.mark.parametrize("times", [1, 2], ids=["once", "twice"])
@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_clusters_up_rolls_back_and_the_launcher_exits_interrupted(
    tmp_path: Path, signum: signal.Signals, times: int
) -> None:
    err = tmp_path / "launcher.out"
    launcher = [sys.executable, "-c", LAUNCHER, str(tmp_path), SLOW_CHILD]
    with alone(launcher, err) as proc:
        wait_while_running(
            proc,
            err,
            (tmp_path / "ready").exists,
            "the stand-in for clusters up is ready",
        )
        # A terminal's Ctrl-C reaches its foreground group: the launcher, and
        # with subprocess.run the stand-in too (same group).
        os.killpg(proc.pid, signum)
        wait_while_running(
            proc, err, (tmp_path / "cleaning").exists, "the rollback has started"
        )
        if times == 2:
            os.killpg(proc.pid, signum)
            again = f"Received {signum.name} again: not passed on"
            wait_while_running(
                proc, err, lambda: again in err.read_text(), "the launcher noted it"
            )
        (tmp_path / "release").write_text("")
        status = proc.wait(timeout=FINISHED_TIMEOUT)
    said = err.read_text()
    assert status == INTERRUPTED, said
    assert (tmp_path / "cleaned").read_text() == "SIGINT"  # the rollback finished
    assert (tmp_path / "heard").read_text() == "SIGINT\n"  # once, as SIGINT
    assert not (tmp_path / "pytest-ran").exists()
    assert "Traceback" not in said
    assert (
        f"Interrupted by {signum.name} while the cluster came up: `clusters up` "
        "stopped (exit 7) after rolling back; no test ran." in said
    )


def test_ctrl_c_between_the_children_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(values: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(preflight, "check", interrupted)
    try:
        status = cli.main(["run", "--implementation", "reference"])
    except KeyboardInterrupt:  # would stop this whole session, not fail the test
        pytest.fail("a KeyboardInterrupt escaped the launcher")
    assert status == INTERRUPTED
    assert capsys.readouterr().err == "interrupted (Ctrl-C)\n"
