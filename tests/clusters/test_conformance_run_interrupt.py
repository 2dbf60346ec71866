"""Ctrl-C during a real `python -m conformance run` lets the run clean up and report.

We test this aspect on the local cluster with the reference: a run of one
scenario that has a dedicated controller instance (RecoveryLeaderFailover) is
started as a user starts it, and once its namespace and its private instance
exist, the launcher gets SIGINT, as a terminal's Ctrl-C sends it. The run must
end as interrupted (pytest's exit status 2; a run that finished first would
exit 0 and fail this test, so the interruption is shown, not assumed), and
leave nothing behind: no namespace of its session and no private instance.
Before the fix, `subprocess.run` killed pytest 0.25 s after the signal, with
no teardown, sweep or report.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness import kube
from plumbing.waiting import NotYet
from plumbing.waiting import until

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "test_only_the_leader_acts_and_the_other_replica_takes_over_when_it_dies"
SHORT_NAME = "RecoveryLeaderFailover"
PRIVATE_PREFIX = "wpc-t-"
STARTED_TIMEOUT = 900.0
"""Install of the shared instances, then the private one (builds images when cold)."""
INTERRUPTED_TIMEOUT = 300.0
"""Teardown: the private instance's uninstall and the namespace's deletion."""
INTERRUPTED = 2
"""pytest's exit status for a run stopped by KeyboardInterrupt."""


def _namespaces(core, selector: str = "") -> dict[str, dict[str, str]]:
    return {
        ns.metadata.name: dict(ns.metadata.labels or {})
        for ns in core.list_namespace(label_selector=selector).items
    }


def test_ctrl_c_lets_the_run_tear_down_its_namespace_and_private_instance(
    core, tmp_path: Path
):
    before = set(_namespaces(core))
    log = tmp_path / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "conformance",
                "run",
                "--implementation",
                "reference",
                "--layout",
                "legacy",
                "--reports-dir",
                str(tmp_path / "reports"),
                "--",
                "-k",
                SCENARIO,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the signal reaches the launcher only, as from a terminal
        )
    try:

        def started() -> tuple[str, str] | NotYet:
            found = _namespaces(core)
            tests = [
                n for n, labels in found.items() if labels.get(kube.TEST) == SHORT_NAME
            ]
            private = [
                n for n in found if n.startswith(PRIVATE_PREFIX) and n not in before
            ]
            if proc.poll() is not None:
                raise AssertionError(
                    f"the run ended first ({proc.returncode}):\n{log.read_text()[-3000:]}"
                )
            if tests and private:
                return tests[0], private[0]
            return NotYet(f"test namespaces {tests}, private instances {private}")

        test_ns, private_ns = until(
            started,
            timeout=STARTED_TIMEOUT,
            interval=1.0,
            describe="the scenario is under way",
        )
        session = _namespaces(core)[test_ns][kube.SESSION]
        os.kill(proc.pid, signal.SIGINT)
        status = proc.wait(timeout=INTERRUPTED_TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    output = log.read_text()
    assert status == INTERRUPTED, f"exit {status}; output tail:\n{output[-3000:]}"
    assert "KeyboardInterrupt" in output
    left = _namespaces(core)
    assert test_ns not in left, f"the test namespace {test_ns} was left behind"
    assert private_ns not in left, f"the private instance {private_ns} was left behind"
    assert not _namespaces(core, kube.session_selector(session))
