"""We test these aspects of the runner's pure parts (no cluster):

- the `-k` expression selects each test file in exactly its layouts;
- the suite's invocation carries the faulty profile, the fault, the row's layouts
  (`both` when mixed), `--skip-install`, its reports, its timeout scale, and uses
  pytest-xdist only for more than one test;
- a ConformanceReport is read by ShortName and layout: layout-divergence records
  are left out, and several functions of one ShortName give one result in which a
  failure wins and the clauses of equal outcomes are combined;
- each failure kind and the clauses its assertion named are read (of two failures,
  an assertion speaks for the ShortName); an older report's failure is a harness error;
- a row is judged only when the leader Lease of each of its instances says its
  controller runs the row's fault; another fault, none, or no word within the
  budget is a RunnerError naming the expected and the observed.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.negative import results
from tests.negative import runner
from tests.negative.controls import Control
from tests.negative.controls import TestRef

HELLO_I = TestRef("HelloWorld", "initless")
HELLO_L = TestRef("HelloWorld", "legacy")
SHAPE = TestRef("LegacyPodShape", "legacy")
TARGET = runner.Target(
    provider="local",
    cluster="wpc",
    kubeconfig="/kc",
    kubectl="kubectl",
    cache_dir=Path("/cache"),
    out_dir=Path("/out"),
)


def control(*tests: TestRef, scale: float = 1.0) -> Control:
    return Control(
        fault="f-1",
        clauses=("WPC-X-001",),
        killers=tests[:1],
        canaries=tests[1:],
        timeout_scale=scale,
    )


def test_the_selection_names_each_file_with_its_layout():
    assert runner.selection([SHAPE, HELLO_I]) == (
        "(test_hello_world.py and [initless]) or (test_legacy_pod_shape.py and [legacy])"
    )


def test_the_invocation_runs_the_rows_tests_against_the_fault():
    argv = runner.pytest_argv(control(SHAPE, HELLO_I, scale=2.0), TARGET, workers=2)
    options = dict(itertools.pairwise(argv))
    assert argv[1:3] == ["-m", "pytest"]
    assert str(runner.PROFILE) == options["--wpc-implementation"]
    assert options["--wpc-profile-var"] == "fault=f-1"
    assert options["--wpc-layout"] == "both"
    assert options["--wpc-report"] == "/out/f-1/conformance.yaml"
    assert options["--wpc-timeout-scale"] == "2.0"
    assert options["-n"] == "2"
    assert "--wpc-skip-install" in argv
    assert str(HELLO_I.path()) in argv


def test_one_test_in_one_layout_needs_no_xdist():
    argv = runner.pytest_argv(control(HELLO_L), TARGET, workers=2)
    assert argv[argv.index("--wpc-layout") + 1] == "legacy"
    assert "-n" not in argv


def record(
    name: str, layout: str, outcome: str, clauses: list[str], kind: str = "scenario"
) -> dict[str, Any]:
    return {
        "shortName": name,
        "layout": layout,
        "outcome": outcome,
        "clauses": clauses,
        "message": f"{outcome} {clauses[0]}",
        "kind": kind,
    }


def test_a_report_is_read_by_short_name_and_layout(tmp_path):
    path = tmp_path / "conformance.yaml"
    tests = [
        record("FinalizerDeletion", "legacy", "passed", ["WPC-FINALIZER-005"]),
        record("FinalizerDeletion", "legacy", "failed", ["WPC-FINALIZER-006"]),
        record("HelloWorld", "legacy", "passed", ["WPC-STATUS-002"]),
        record("HelloWorld", "initless", "passed", ["WPC-STATUS-002"]),
        record(
            "HelloWorld", "legacy+initless", "failed", ["WPC-STATUS-002"], "divergence"
        ),
        record("KillShutdown", "legacy", "failed", ["WPC-KILL-008"]),
        record("KillShutdown", "legacy", "failed", ["WPC-KILL-010"]),
    ]
    path.write_text(yaml.safe_dump({"tests": tests}))

    found = results.read_report(path)

    assert set(found) == {
        TestRef("FinalizerDeletion", "legacy"),
        HELLO_L,
        HELLO_I,
        TestRef("KillShutdown", "legacy"),
    }
    deletion = found[TestRef("FinalizerDeletion", "legacy")]
    assert (deletion.outcome, deletion.clauses) == ("failed", ("WPC-FINALIZER-006",))
    shutdown = found[TestRef("KillShutdown", "legacy")]
    assert shutdown.clauses == ("WPC-KILL-008", "WPC-KILL-010")
    assert shutdown.message == "failed WPC-KILL-008\nfailed WPC-KILL-010"
    assert found[HELLO_L].outcome == "passed"
    # Written before failure kinds were recorded: nothing says an assertion failed.
    assert (shutdown.failure_kind, shutdown.failed_clauses) == ("harness-error", ())
    assert found[HELLO_L].failure_kind is None


def test_failure_kinds_are_read_and_an_assertion_speaks_for_its_short_name(tmp_path):
    path = tmp_path / "conformance.yaml"
    tests = [
        {
            **record("KillShutdown", "legacy", "failed", ["WPC-KILL-008"]),
            "failureKind": "timeout",
            "failedClauses": [],
        },
        {
            **record("KillShutdown", "legacy", "failed", ["WPC-KILL-010"]),
            "failureKind": "assertion",
            "failedClauses": ["WPC-KILL-010", "WPC-POD-001"],
        },
        {
            **record("HelloWorld", "legacy", "error", ["WPC-STATUS-002"]),
            "failureKind": "harness-error",
            "failedClauses": [],
        },
    ]
    path.write_text(yaml.safe_dump({"tests": tests}))

    found = results.read_report(path)

    shutdown = found[TestRef("KillShutdown", "legacy")]
    assert (shutdown.failure_kind, shutdown.failed_clauses) == (
        "assertion",
        ("WPC-KILL-010", "WPC-POD-001"),
    )
    assert (found[HELLO_L].failure_kind, found[HELLO_L].failed_clauses) == (
        "harness-error",
        (),
    )


class FakeClock:
    """A clock whose sleeps only move time on."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def lease(fault: str | None, holder: str | None = "pod-1") -> dict[str, Any]:
    annotations = {} if fault is None else {"wpc.dev/reference-fault": fault}
    return {
        "metadata": {"name": "x", "annotations": annotations},
        "spec": {"holderIdentity": holder},
    }


def fault_row(fault: str = "never-ready") -> Control:
    return Control(
        fault=fault,
        clauses=("WPC-STATUS-002",),
        killers=(HELLO_I,),
        canaries=(HELLO_L,),
    )


def check(reads: list[dict[str, Any] | None], fault: str = "never-ready") -> list[Any]:
    """Run check_fault over Leases that answer `reads` in turn (the last one stays)."""
    asked: list[Any] = []

    def reader(namespace: str, name: str) -> dict[str, Any] | None:
        asked.append((namespace, name))
        return reads[min(len(asked) - 1, len(reads) - 1)]

    runner.check_fault(
        TARGET, fault_row(fault), reader=reader, timeout=10, clock=FakeClock()
    )
    return asked


def test_the_runner_judges_a_row_whose_controllers_publish_its_fault():
    asked = check([None, lease(None), lease("never-ready")])
    # Both layouts' Leases, named as the reference names them, after waiting.
    assert (
        asked[:3]
        == [
            (
                "wpc-neg-never-ready-initless",
                "workflow-controller-wpc-neg-never-ready-initless",
            )
        ]
        * 3
    )
    assert asked[-1] == (
        "wpc-neg-never-ready-legacy",
        "workflow-controller-wpc-neg-never-ready-legacy",
    )


def test_the_runner_refuses_a_row_whose_controller_runs_another_fault():
    with pytest.raises(
        runner.RunnerError,
        match=r"\[never-ready\] the controller of wpc-neg-never-ready-initless runs "
        r"with fault 'slow-heartbeat', expected 'never-ready' \(Lease "
        r"wpc-neg-never-ready-initless/workflow-controller-wpc-neg-never-ready-"
        r"initless, annotation wpc.dev/reference-fault\); the row is not judged",
    ):
        check([lease("slow-heartbeat")])


def test_the_runner_refuses_a_row_whose_controller_runs_no_fault():
    with pytest.raises(runner.RunnerError, match=r"with fault '\(none\)', expected"):
        check([lease("")])


@pytest.mark.parametrize(
    ("reads", "last"),
    [
        ([None], "no Lease wpc-neg-never-ready-initless/workflow-controller"),
        ([lease(None)], "held by pod-1 without wpc.dev/reference-fault"),
        ([lease("never-ready", holder=None)], "held by nobody without"),
    ],
)
def test_the_runner_refuses_a_row_whose_fault_it_cannot_see(reads, last):
    with pytest.raises(runner.RunnerError, match="cannot tell which fault") as info:
        check(reads)
    assert last in str(info.value)
    assert "timed out after 10 s" in str(info.value)


def _rows(*names: str) -> list[Control]:
    return [
        Control(fault=n, clauses=("WPC-X-001",), killers=(HELLO_L,), canaries=(SHAPE,))
        for n in names
    ]


def test_a_rows_uninstall_runs_beside_the_next_row_and_ends_before_the_run(monkeypatch):
    """With one slot, row b is tested while row a's uninstall is still waiting.

    Before, the uninstall held the slot: b could not start until a was gone, so a's
    uninstall (which here waits for b to start) timed out.
    """
    import threading

    b_started = threading.Event()
    events: list[str] = []

    def fake_test(control, target, *, workers):
        events.append(f"test {control.fault}")
        if control.fault == "b":
            b_started.set()
        return f"verdict {control.fault}"

    def fake_uninstall(target, fault, layouts):
        if fault == "a":
            assert b_started.wait(timeout=10), (
                "row b never started beside a's uninstall"
            )
        events.append(f"gone {fault}")

    monkeypatch.setattr(runner, "judge_fault", fake_test)
    monkeypatch.setattr(runner, "uninstall", fake_uninstall)
    done: list[str] = []
    got = runner.run_faults(
        _rows("a", "b"), TARGET, parallel=1, done=lambda c, o: done.append(c.fault)
    )
    assert got == {"a": "verdict a", "b": "verdict b"}
    assert events.index("test b") < events.index("gone a")
    assert sorted(done) == ["a", "b"]  # each reported only once gone, all before return


def test_a_row_whose_uninstall_fails_is_not_judged(monkeypatch):
    def fake_uninstall(target, fault, layouts):
        raise runner.RunnerError(f"cannot delete {fault}")

    monkeypatch.setattr(runner, "judge_fault", lambda c, t, *, workers: "verdict")
    monkeypatch.setattr(runner, "uninstall", fake_uninstall)
    got = runner.run_faults(_rows("a"), TARGET, parallel=2)
    assert isinstance(got["a"], runner.RunnerError)
    assert "cannot delete a" in str(got["a"])


def test_a_row_that_cannot_be_judged_is_still_uninstalled(monkeypatch):
    gone: list[str] = []

    def fake_test(control, target, *, workers):
        raise runner.RunnerError("the controller runs no fault")

    monkeypatch.setattr(runner, "judge_fault", fake_test)
    monkeypatch.setattr(
        runner, "uninstall", lambda t, fault, layouts: gone.append(fault)
    )
    got = runner.run_faults(_rows("a"), TARGET, parallel=2)
    assert gone == ["a"]
    assert str(got["a"]) == "the controller runs no fault"
