"""We test these aspects of judging a fault's run and of the mutation score (no cluster):

- killed: every killer failed an assertion naming one of the fault's clauses, every
  canary passed; only the named clauses are credited, never the marker's citation;
- not caught (timeout) / not caught (harness error): a killer failed only by a
  timeout / by another exception (or errored), whatever its marker cites, with the
  evidence line; an errored killer that timed out in setup is a timeout;
- survived: a killer passed; unspecific: a killer's assertion named none of the
  fault's clauses (or no clause), or a canary failed too; error: a killer or canary
  was skipped or did not run; pending: the table's reason, nothing run;
- the mutation score is MUST clauses with a killing test / MUST clauses: SHOULD
  clauses, clauses of faults not killed and clauses no killer's assertion named do
  not count, and a clause killed twice counts once; the fault score counts killed
  faults and lists every other fault (pending ones too) as a survivor;
- the summary document names the reference implementation, what a kill is, the
  code and spec it measured and the faults not run with why, and matches its schema
  (kept in `conformance/`, which reads it into the ConformanceReport), also when empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from conformance.report.scores.provenance import Provenance
from tests.negative import results
from tests.negative import scoring
from tests.negative.controls import Control
from tests.negative.controls import TestRef

KILLER = TestRef("HandshakeMarker", "initless")
CANARY = TestRef("HelloWorld", "initless")
CONTROL = Control(
    fault="slow-heartbeat",
    clauses=("WPC-HANDSHAKE-003", "WPC-HANDSHAKE-008"),
    killers=(KILLER,),
    canaries=(CANARY,),
)
MARKER_CLAUSES = ("WPC-HANDSHAKE-001", "WPC-HANDSHAKE-003")
MEASURED_ON = Provenance(
    commit="0123456789abcdef0123456789abcdef01234567",
    dirty=True,
    changes="c1" * 32,
    spec_version="1.0",
)
NOT_RUN = [
    {"fault": "x", "reason": "not-selected", "detail": "deselected"},
    {"fault": "a", "reason": "chaos", "detail": "only a chaos experiment sees it"},
]


def seen(
    test: TestRef,
    outcome: str,
    clauses: tuple[str, ...] = MARKER_CLAUSES,
    message: str = "",
    *,
    kind: str | None = None,
    named: tuple[str, ...] = ("WPC-HANDSHAKE-003",),
) -> results.Observed:
    """An observed test; a failed one failed an assertion naming `named` by default."""
    if outcome in ("failed", "error"):
        kind = kind or ("assertion" if outcome == "failed" else "harness-error")
    return results.Observed(
        test=test,
        outcome=outcome,
        clauses=clauses,
        message=message,
        failure_kind=kind,
        failed_clauses=named if kind == "assertion" else (),
    )


def judge(
    killer: results.Observed | None,
    canary: results.Observed | None,
    control: Control = CONTROL,
) -> scoring.Verdict:
    observed = {t.test: t for t in (killer, canary) if t is not None}
    return scoring.judge(control, observed, duration=12.5)


def test_an_assertion_naming_the_clause_and_a_passing_canary_kill_the_fault():
    verdict = judge(seen(KILLER, "failed"), seen(CANARY, "passed", ("WPC-STATUS-002",)))
    assert verdict.status == scoring.KILLED
    assert verdict.killed_clauses == ("WPC-HANDSHAKE-003",)
    assert verdict.problems == ()


def test_only_the_clauses_the_assertion_names_are_credited():
    # The marker cites WPC-HANDSHAKE-003 too; the assertion names only -008.
    killer = seen(KILLER, "failed", named=("WPC-HANDSHAKE-008", "WPC-POD-001"))
    verdict = judge(killer, seen(CANARY, "passed"))
    assert verdict.status == scoring.KILLED
    assert verdict.killed_clauses == ("WPC-HANDSHAKE-008",)


TIMED_OUT = (
    "x\nE   conformance.errors.WaitTimeout: timed out after 63 s waiting for phase"
)


@pytest.mark.parametrize(
    ("killer", "status", "problem"),
    [
        (
            seen(KILLER, "failed", message=TIMED_OUT, kind="timeout"),
            scoring.NOT_CAUGHT_TIMEOUT,
            "killer HandshakeMarker[initless] not caught (timeout): E   conformance."
            "errors.WaitTimeout: timed out after 63 s waiting for phase",
        ),
        (
            seen(KILLER, "error", message=TIMED_OUT, kind="timeout"),
            scoring.NOT_CAUGHT_TIMEOUT,
            "killer HandshakeMarker[initless] not caught (timeout): E   conformance."
            "errors.WaitTimeout: timed out after 63 s waiting for phase",
        ),
        (
            seen(
                KILLER, "failed", message="E   KeyError: 'status'", kind="harness-error"
            ),
            scoring.NOT_CAUGHT_HARNESS,
            "killer HandshakeMarker[initless] not caught (harness error): "
            "E   KeyError: 'status'",
        ),
        (
            seen(KILLER, "error", message="E   HarnessError: kubectl vanished"),
            scoring.NOT_CAUGHT_HARNESS,
            "killer HandshakeMarker[initless] not caught (harness error): "
            "E   HarnessError: kubectl vanished",
        ),
        (
            # An errored test that says "assertion" (a fixture) is still not a kill.
            seen(KILLER, "error", message="E   AssertionError", kind="assertion"),
            scoring.NOT_CAUGHT_HARNESS,
            "killer HandshakeMarker[initless] not caught (harness error): "
            "E   AssertionError",
        ),
    ],
)
def test_a_killer_failing_only_by_timeout_or_harness_error_is_not_caught(
    killer, status, problem
):
    verdict = judge(killer, seen(CANARY, "passed"))
    assert verdict.status == status
    assert verdict.killed_clauses == ()
    assert verdict.problems == (problem,)
    assert scoring.label(status).startswith("not caught (")


def test_a_killer_timing_out_beside_a_killing_one_keeps_the_fault_not_caught():
    other = TestRef("StatusAuxFaults", "initless")
    control = Control(
        fault="slow-heartbeat",
        clauses=CONTROL.clauses,
        killers=(KILLER, other),
        canaries=(CANARY,),
    )
    observed = {
        KILLER: seen(KILLER, "failed"),
        other: seen(other, "failed", kind="timeout", message="E   WaitTimeout"),
        CANARY: seen(CANARY, "passed"),
    }
    verdict = scoring.judge(control, observed, duration=1)
    assert verdict.status == scoring.NOT_CAUGHT_TIMEOUT
    assert verdict.killed_clauses == ()


def test_a_passing_killer_means_the_fault_survived():
    verdict = judge(seen(KILLER, "passed"), seen(CANARY, "passed"))
    assert verdict.status == scoring.SURVIVED
    assert verdict.killed_clauses == ()
    assert verdict.problems == (
        "killer HandshakeMarker[initless] passed, expected failed",
    )


@pytest.mark.parametrize(
    ("named", "words"),
    [(("WPC-STATUS-002",), "naming WPC-STATUS-002"), ((), "naming no clause")],
)
def test_an_assertion_naming_other_clauses_is_unspecific(named, words):
    # The marker cites WPC-HANDSHAKE-003: citing is not enough.
    killer = seen(KILLER, "failed", named=named, message="E   AssertionError: x")
    verdict = judge(killer, seen(CANARY, "passed"))
    assert verdict.status == scoring.UNSPECIFIC
    assert verdict.problems == (
        f"killer HandshakeMarker[initless] failed an assertion {words}, none of "
        "WPC-HANDSHAKE-003, WPC-HANDSHAKE-008: E   AssertionError: x",
    )


def test_a_failing_canary_makes_the_kill_unspecific():
    canary = seen(CANARY, "failed", message="line\nE   AssertionError: boom\nmore")
    verdict = judge(seen(KILLER, "failed"), canary)
    assert verdict.status == scoring.UNSPECIFIC
    assert verdict.killed_clauses == ()
    assert verdict.problems == (
        "canary HelloWorld[initless] failed, expected passed: E   AssertionError: boom",
    )


@pytest.mark.parametrize(
    ("killer", "canary"),
    [
        (seen(KILLER, "skipped"), seen(CANARY, "passed")),
        (None, seen(CANARY, "passed")),
        (seen(KILLER, "failed"), seen(CANARY, "error")),
        (seen(KILLER, "failed"), None),
    ],
)
def test_skipped_and_missing_tests_are_errors(killer, canary):
    verdict = judge(killer, canary)
    assert verdict.status == scoring.ERROR
    assert verdict.problems


def test_a_missing_test_is_reported_as_missing():
    verdict = judge(None, seen(CANARY, "passed"))
    entry = scoring.verdict_json(verdict)
    assert entry["tests"][0] == {
        "test": "HandshakeMarker",
        "layout": "initless",
        "role": "killer",
        "outcome": "missing",
        "clauses": [],
        "failureKind": None,
        "failedClauses": [],
        "message": "",
    }


def test_a_pending_row_is_judged_without_running():
    control = Control(
        fault="leave-finalizer",
        clauses=("WPC-FINALIZER-006",),
        killers=(),
        canaries=(CANARY,),
        status="pending",
        reason="no test yet",
    )
    verdict = scoring.judge(control, {}, duration=0)
    assert (verdict.status, verdict.problems) == ("pending", ("no test yet",))


def entry(fault: str, status: str, killed: Iterable[str] = ()) -> dict[str, Any]:
    return {"fault": fault, "status": status, "killedClauses": list(killed)}


MUST = ["WPC-A-001", "WPC-A-002", "WPC-A-003", "WPC-A-004"]


def test_the_clause_score_counts_killed_must_clauses_once():
    result = scoring.score(
        [
            entry("f1", "killed", ["WPC-A-001", "WPC-A-002"]),
            entry("f2", "killed", ["WPC-A-002", "WPC-S-001"]),  # S: a SHOULD clause
            entry("f3", "survived"),
            entry("f4", "unspecific"),
            entry("f5", "pending"),
        ],
        must=MUST,
    )
    assert result.killed_must == ("WPC-A-001", "WPC-A-002")
    assert (result.must_total, result.clause_score) == (4, 0.5)
    assert (result.faults_killed, result.faults_total) == (2, 5)
    assert result.fault_score == pytest.approx(0.4)
    assert result.survivors == ("f3", "f4", "f5")


def test_clauses_of_faults_not_killed_do_not_count():
    result = scoring.score([entry("f1", "unspecific", ["WPC-A-001"])], must=MUST)
    assert result.killed_must == ()
    assert result.clause_score == 0.0


def test_nothing_scores_zero_without_dividing_by_zero():
    result = scoring.score([], must=[])
    assert (result.clause_score, result.fault_score) == (0.0, 0.0)


def test_the_summary_matches_its_schema():
    killed = judge(seen(KILLER, "failed"), seen(CANARY, "passed"))
    timed_out = judge(seen(KILLER, "failed", kind="timeout"), seen(CANARY, "passed"))
    entries = [scoring.verdict_json(killed), entry("leave-finalizer", "pending")]
    entries.append({**scoring.verdict_json(timed_out), "fault": "never-ready"})
    assert entries[2]["status"] == "timeout"
    assert entries[2]["tests"][0]["failureKind"] == "timeout"
    entries[1].update(
        clauses=["WPC-FINALIZER-006"],
        problems=["no test yet"],
        timeoutScale=1.0,
        durationSeconds=0.0,
        tests=[],
    )
    document = scoring.summary(
        entries,
        must=[*MUST, "WPC-HANDSHAKE-003"],
        not_run=NOT_RUN,
        duration=99.94,
        measured_on=MEASURED_ON,
    )
    scoring.validate(document)
    assert document["implementation"] == "reference"
    assert document["measuredOn"] == {
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "dirty": True,
        "changes": "c1" * 32,
        "specVersion": "1.0",
    }
    assert document["mutationScore"] == {
        "counting": "clause-assertion",
        "killed": 1,
        "total": 5,
        "score": 0.2,
        "killedClauses": ["WPC-HANDSHAKE-003"],
        "byFamily": {
            "A": {"killed": 0, "total": 4},
            "HANDSHAKE": {"killed": 1, "total": 1},
        },
    }
    assert document["faultScore"] == {
        "killed": 1,
        "total": 3,
        "score": 0.3333,
        "survivors": ["leave-finalizer", "never-ready"],
    }
    assert document["durationSeconds"] == 99.9
    assert document["notRun"] == [NOT_RUN[1], NOT_RUN[0]]  # by fault name


def test_the_score_by_family_lists_every_family_and_only_must_kills():
    families = scoring.by_family(
        ["WPC-POD-001", "WPC-POD-009", "WPC-KILL-002"],
        ["WPC-POD-001", "WPC-POD-002", "WPC-KILL-001", "WPC-RESULT-001"],
    )
    assert families == {
        "KILL": {"killed": 0, "total": 1},  # KILL-002 is no MUST clause here
        "POD": {"killed": 1, "total": 2},
        "RESULT": {"killed": 0, "total": 1},
    }


def test_an_empty_summary_matches_its_schema():
    scoring.validate(
        scoring.summary([], must=MUST, not_run=[], duration=0, measured_on=MEASURED_ON)
    )
