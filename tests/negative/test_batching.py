"""We test these aspects of the session summary (no cluster):

- a verdict is recorded as `<out>/faults/<fault>.json`; a run that raised becomes an
  `error` verdict carrying the first line of the exception;
- the summary takes only verdicts written since the session started, in table order,
  lists every other fault of the reference implementation as not run with why
  (deselected, or chaos-only), records the code and spec it measured, and matches
  its schema;
- without fresh verdicts no summary is written.
"""

from __future__ import annotations

import os

import yaml

from conformance.report.scores.provenance import Provenance
from reference_impl.controller import faults
from tests.negative import batching
from tests.negative import controls
from tests.negative import results
from tests.negative import runner
from tests.negative import scoring

ROWS = {row.fault: row for row in controls.load()}
MEASURED_ON = Provenance(commit="f" * 40, dirty=False, changes=None, spec_version="1.0")


def killed(fault: str) -> scoring.Verdict:
    row = ROWS[fault]
    observed = {
        **{
            t: results.Observed(t, "failed", row.clauses, "", "assertion", row.clauses)
            for t in row.killers
        },
        **{t: results.Observed(t, "passed") for t in row.canaries},
    }
    return scoring.judge(row, observed, duration=3.0)


def test_a_failed_run_is_recorded_as_an_error(tmp_path):
    row = ROWS["slow-heartbeat"]
    verdict = batching.as_verdict(row, runner.RunnerError("exit code 4\nlog tail"))
    path = batching.record(verdict, tmp_path)
    assert path == tmp_path / "faults" / "slow-heartbeat.json"
    assert (verdict.status, verdict.problems) == ("error", ("exit code 4",))


def test_the_summary_takes_this_sessions_verdicts_in_table_order(tmp_path):
    stale = batching.record(killed("slow-heartbeat"), tmp_path)
    os.utime(stale, (1000, 1000))
    for fault in ("no-owner-reference", "exit-1-not-65"):
        batching.record(killed(fault), tmp_path)

    document = batching.write_summary(
        started=2000, measured_on=MEASURED_ON, out_dir=tmp_path
    )

    assert document is not None
    ran = {"no-owner-reference", "exit-1-not-65"}
    assert [f["fault"] for f in document["faults"]] == [
        fault for fault in ROWS if fault in ran
    ]
    assert document["measuredOn"] == MEASURED_ON.to_json()
    not_run = {e["fault"]: e["reason"] for e in document["notRun"]}
    assert set(not_run) == set(faults.known_names()) - ran
    assert not_run["slow-heartbeat"] == "not-selected"
    assert {f for f, reason in not_run.items() if reason == "chaos"} == {
        row.fault for row in ROWS.values() if row.status == controls.CHAOS
    }
    assert {f for f, reason in not_run.items() if reason == "pending"} == {
        row.fault for row in ROWS.values() if row.status == controls.PENDING
    }
    assert set(not_run.values()) <= {"not-selected", "chaos", "pending"}
    assert document["faultScore"]["killed"] == 2
    assert document["mutationScore"]["killedClauses"] == sorted(
        {*ROWS["exit-1-not-65"].clauses, *ROWS["no-owner-reference"].clauses}
        & controls.Known.discover().must
    )
    written = yaml.safe_load((tmp_path.parent / f"{tmp_path.name}.yaml").read_text())
    assert written == document


def test_no_fresh_verdicts_write_no_summary(tmp_path):
    os.utime(batching.record(killed("exit-1-not-65"), tmp_path), (1000, 1000))
    assert (
        batching.write_summary(started=2000, measured_on=MEASURED_ON, out_dir=tmp_path)
        is None
    )
    assert not (tmp_path.parent / f"{tmp_path.name}.yaml").exists()
