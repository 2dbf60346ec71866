"""We test that the reference controller stops on SIGTERM at once (WPC-RECOVERY-011).

Upstream v4.1.0 swallowed SIGTERM (argoproj/argo-workflows#15863) and was killed
only at its grace period. Here a child process runs `running.run` with the
Kubernetes client, the workflow controller and (with leader election) the
elector replaced by fakes, reports that it started, and is sent SIGTERM: it
must exit 0 well inside the bound the clause sets, with and without leader
election. A child process, because the signal handlers are process-wide.

The negative control `controller-ignores-term` (a fault of commission, its
`ignoreSignals` hook) must make the same child ignore SIGTERM, and still stop on
SIGINT.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
BOUND_SECONDS = 5.0
"""Well under the clause's 10 s: nothing but the signal path runs here."""

CHILD = """
import sys
from reference_impl.controller.config.settings import ControllerSettings
from reference_impl.controller.runtime import running


class FakeApi:
    def __init__(self, *args, **kwargs):
        pass

    def get_configmap(self, namespace, name):
        return {"data": {}}


class FakeController:
    def __init__(self, **kwargs):
        pass

    def start(self, stop):
        print("started", flush=True)


class FakeElector:
    def __init__(self, **kwargs):
        pass

    def run(self, *, stop, on_started):
        on_started()
        while not stop.wait(3600):
            pass


running.kube.KubeApi = FakeApi
running.kube.load_configuration = lambda *args: None
running.WorkflowController = FakeController
running.leading.LeaderElector = FakeElector
env = {} if sys.argv[1] == "elect" else {"LEADER_ELECTION_DISABLE": "true"}
if len(sys.argv) > 2:
    env["WPC_REFERENCE_FAULT"] = sys.argv[2]
sys.exit(running.run(ControllerSettings.from_env(env)))
"""


IGNORED_FOR = 1.0
"""How long the faulty child must outlive a SIGTERM (the working one exits at once)."""


def child_process(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize("mode", ["elect", "single"])
def test_sigterm_stops_the_controller_with_exit_code_zero(mode):
    with child_process(mode) as child:
        try:
            assert child.stdout is not None
            assert child.stderr is not None
            line = child.stdout.readline()
            assert line == "started\n", child.stderr.read()
            sent = time.monotonic()
            child.send_signal(signal.SIGTERM)
            code = child.wait(timeout=BOUND_SECONDS)
            elapsed = time.monotonic() - sent
        finally:
            if child.poll() is None:
                child.kill()
    assert code == 0
    assert elapsed < BOUND_SECONDS


def test_the_ignore_signals_fault_makes_the_controller_ignore_sigterm_only():
    with child_process("single", "controller-ignores-term") as child:
        try:
            assert child.stdout is not None
            assert child.stderr is not None
            line = child.stdout.readline()
            assert line == "started\n", child.stderr.read()
            child.send_signal(signal.SIGTERM)
            with pytest.raises(subprocess.TimeoutExpired):
                child.wait(timeout=IGNORED_FOR)
            child.send_signal(signal.SIGINT)
            code = child.wait(timeout=BOUND_SECONDS)
        finally:
            if child.poll() is None:
                child.kill()
    assert code == 0
