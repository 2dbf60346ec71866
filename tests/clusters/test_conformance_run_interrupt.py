"""Ctrl-C during a real `python -m conformance run` lets the run clean up and report;
what a run that was killed outright left behind, the next run on the host removes.

We test these aspects on the local cluster with the reference. First: a run of one
scenario that has a dedicated controller instance (RecoveryLeaderFailover) is
started as a user starts it, and once its namespace and its private instance
exist, the launcher gets SIGINT, as a terminal's Ctrl-C sends it, or SIGTERM,
as a cancelled CI job sends it. The run must
end as interrupted (pytest's exit status 2; a run that finished first would
exit 0 and fail this test, so the interruption is shown, not assumed), and
leave nothing behind: no namespace of its session and no private instance,
and write a report marked interrupted by that signal, the scenario cut short.
Before the fix, `subprocess.run` killed pytest 0.25 s after the signal, with
no teardown, sweep or report.

Second: the same run is killed with SIGKILL (launcher, pytest and all), which
no clean-up survives; its namespace and private instance are shown left
behind, and the next run (HelloWorld) removes both before it starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.harness.cluster import kube
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


def _run(
    tmp_path: Path, name: str, scenario: str
) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / f"{name}.log"
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
                str(tmp_path / name),
                "--",
                "-k",
                scenario,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the signal reaches the launcher only, as from a terminal
        )
    return proc, log


def _process_groups(pid: int) -> set[int]:
    """The process groups of `pid` and its descendants (pytest runs in a group of its own)."""
    groups = set()
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            groups.add(os.getpgid(current))
            children = (
                Path(f"/proc/{current}/task/{current}/children").read_text().split()
            )
        except (ProcessLookupError, FileNotFoundError):
            continue
        pending += [int(c) for c in children]
    return groups


def _kill_all(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the launcher and everything it started, as a crash or OOM kill would."""
    for group in _process_groups(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    proc.wait()


def _under_way(core, proc, log: Path, before: set[str]) -> tuple[str, str]:
    """The run's test namespace and private instance, once both exist."""

    def started() -> tuple[str, str] | NotYet:
        found = _namespaces(core)
        tests = [
            n for n, labels in found.items() if labels.get(kube.TEST) == SHORT_NAME
        ]
        private = [n for n in found if n.startswith(PRIVATE_PREFIX) and n not in before]
        if proc.poll() is not None:
            raise AssertionError(
                f"the run ended first ({proc.returncode}):\n{log.read_text()[-3000:]}"
            )
        if tests and private:
            return tests[0], private[0]
        return NotYet(f"test namespaces {tests}, private instances {private}")

    found: tuple[str, str] = until(
        started,
        timeout=STARTED_TIMEOUT,
        interval=1.0,
        describe="the scenario is under way",
    )
    return found


def test_a_killed_runs_leftovers_are_removed_by_the_next_run(core, tmp_path: Path):
    before = set(_namespaces(core))
    proc, log = _run(tmp_path, "killed", SCENARIO)
    try:
        test_ns, private_ns = _under_way(core, proc, log, before)
    finally:
        _kill_all(proc)  # nothing of the run survives to clean up
    left = _namespaces(core)
    assert test_ns in left, "the kill left no test namespace to sweep"
    assert private_ns in left, "the kill left no private instance to sweep"
    assert left[private_ns].get(kube.INSTANCE) == private_ns
    nxt, log = _run(tmp_path, "next", "test_hello_world")
    assert nxt.wait(timeout=STARTED_TIMEOUT) == 0, log.read_text()[-3000:]
    output = log.read_text()
    after = _namespaces(core)
    assert test_ns not in after, f"{test_ns} survived the next run:\n{output[-3000:]}"
    assert private_ns not in after, (
        f"{private_ns} survived the next run:\n{output[-3000:]}"
    )


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_ctrl_c_lets_the_run_tear_down_its_namespace_and_private_instance(
    core, tmp_path: Path, signum: signal.Signals
):
    before = set(_namespaces(core))
    proc, log = _run(tmp_path, "interrupted", SCENARIO)
    try:
        test_ns, private_ns = _under_way(core, proc, log, before)
        session = _namespaces(core)[test_ns][kube.SESSION]
        os.kill(proc.pid, signum)
        status = proc.wait(timeout=INTERRUPTED_TIMEOUT)
    finally:
        if proc.poll() is None:
            _kill_all(proc)
    output = log.read_text()
    assert status == INTERRUPTED, f"exit {status}; output tail:\n{output[-3000:]}"
    assert "KeyboardInterrupt" in output
    left = _namespaces(core)
    assert test_ns not in left, f"the test namespace {test_ns} was left behind"
    assert private_ns not in left, f"the private instance {private_ns} was left behind"
    assert not _namespaces(core, kube.session_selector(session))
    report = yaml.safe_load(
        (tmp_path / "interrupted" / "conformance-reference.yaml").read_text()
    )
    assert report["interrupted"]["reason"] == signum.name
    cut = report["interrupted"]["unfinished"]
    assert len(cut) == 1, cut
    assert f"::{SCENARIO}[" in cut[0], cut
    assert report["result"] == "interrupted"
