"""A Ctrl-C during `chaos run` lets it roll back before pytest stops.

chaostoolkit answers SIGINT by running its rollbacks, which remove the
experiment's namespaces and controller instance. A real parent process runs a
stand-in for `chaos run` (it "rolls back" for a second after SIGINT) through
`experimenting.run_letting_it_roll_back` and is interrupted: the rollback must
finish and the KeyboardInterrupt still reach the parent. The same parent on
`subprocess.run`, which the helper replaced, must cut the rollback short
(an interrupted `make negative-controls` left two namespaces and a ClusterRoleBinding
so).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.slowchild import SLOW_CHILD

ROOT = Path(__file__).resolve().parents[3]
READY_TIMEOUT = 30.0
FINISH_TIMEOUT = 60.0

PARENTS = {
    "roll-back": (
        "from chaos.suite import experimenting\n"
        "experimenting.run_letting_it_roll_back(command, env=dict(os.environ), "
        "output=here / 'out')\n"
    ),
    # What experimenting.run did before.
    "subprocess.run": "subprocess.run(command, capture_output=True, check=False)\n",
}


def _parent(kind: str) -> str:
    return (
        "import os, subprocess, sys\n"
        "from pathlib import Path\n"
        "here = Path(sys.argv[1])\n"
        "command = [sys.executable, '-c', sys.argv[2], str(here), '1.0']\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in PARENTS[kind].splitlines())
        + "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(130)\n"
    )


@pytest.mark.parametrize(
    ("kind", "rolled_back"), [("roll-back", True), ("subprocess.run", False)]
)
def test_an_interrupted_run_rolls_back_before_the_interrupt_goes_on(
    tmp_path: Path, kind: str, rolled_back: bool
) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _parent(kind), str(tmp_path), SLOW_CHILD],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        until(
            lambda: (
                (tmp_path / "ready").exists() or NotYet("the stand-in has not started")
            ),
            timeout=READY_TIMEOUT,
            interval=0.05,
            describe="the stand-in for chaos run is ready",
        )
        # A terminal's Ctrl-C reaches the foreground group: the parent, and with
        # subprocess.run the stand-in too (same group); the helper's own group
        # hears it from the helper alone.
        os.killpg(parent.pid, signal.SIGINT)
        out, _ = parent.communicate(timeout=FINISH_TIMEOUT)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert out.strip() == "interrupted"
    assert parent.returncode == 130
    assert (tmp_path / "cleaned").exists() is rolled_back
