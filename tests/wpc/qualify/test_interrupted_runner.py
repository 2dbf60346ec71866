"""Ctrl-C during `qualify` or `history run` lets the suite run it started clean up.

We test this with real processes and a real signal: the qualification's runner
(`running._call`, which starts `python -m conformance run`) runs
`tests.slowchild` instead, whose clean-up lasts until the test releases it, and
its process group gets SIGINT, as a terminal's Ctrl-C sends it. The runner must
pass it on once and wait: the child finishes its clean-up and its exit status
is the runner's. Before, `subprocess.run` killed the child 0.25 s after the
KeyboardInterrupt, before its run's teardown and report.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from tests.conformance.conftest import alone
from tests.conformance.conftest import wait_while_running
from tests.slowchild import SLOW_CHILD

FINISHED_TIMEOUT = 60.0

RUNNER = """
import sys
from wpc.qualify import running
sys.exit(running._call([sys.executable, "-c", sys.argv[2], sys.argv[1], "release"]))
"""


def test_the_runner_passes_ctrl_c_on_and_waits_for_the_clean_up(
    tmp_path: Path,
) -> None:
    err = tmp_path / "runner.out"
    with alone([sys.executable, "-c", RUNNER, str(tmp_path), SLOW_CHILD], err) as proc:
        wait_while_running(proc, err, (tmp_path / "ready").exists, "the child is ready")
        os.killpg(proc.pid, signal.SIGINT)
        wait_while_running(
            proc,
            err,
            lambda: "Received SIGINT: passed to its process group" in err.read_text(),
            "the runner passed the signal on",
        )
        (tmp_path / "release").write_text("")
        status = proc.wait(timeout=FINISHED_TIMEOUT)
    assert status == 7, err.read_text()  # the child's own status
    assert (tmp_path / "cleaned").read_text() == "SIGINT"
    assert (tmp_path / "heard").read_text() == "SIGINT\n"
