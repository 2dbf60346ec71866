"""We test these aspects of where an item's time goes:

- the harness's `timed` blocks count only inside an item, only the outermost
  block of nested ones, and an unknown phase name is refused;
- the report's phases of an item add up to its duration, with installs,
  configuration changes and restarts of the test body counted as setup;
- end to end: every suite item of a run has phases in the report (which still
  validates), the waits and submissions the harness made are where they
  happened, and the run's summary lists the slowest items with their slowest
  phase;
- a report without phases (written before they were recorded) still validates.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from conformance.harness.cluster import timing
from conformance.report.items import phases
from conformance.report.runs import documents
from tests.conformance.conftest import wpc_args


class Ticks:
    """A clock that advances one second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_timed_counts_only_inside_an_item_and_only_the_outermost_block() -> None:
    with timing.timed(timing.WAIT):
        pass  # no item: nothing to record into, and no error
    recorder = timing.Phases(clock=Ticks())
    with timing.recording(recorder):
        with timing.timed(timing.RESTART), timing.timed(timing.WAIT):
            pass
        with timing.timed(timing.SUBMIT):
            pass
    with timing.timed(timing.SUBMIT):
        pass  # after the item: not its time
    # RESTART read the clock at 1 and 4 (WAIT's two readings in between).
    assert recorder.take() == {timing.RESTART: 3.0, timing.SUBMIT: 1.0}
    assert recorder.take() == {}


def test_an_unknown_phase_is_refused() -> None:
    with (
        pytest.raises(ValueError, match="unknown phase 'sleep'"),
        timing.Phases().timed("sleep"),
    ):
        pass


def test_phases_add_up_to_the_duration_and_body_restarts_count_as_setup() -> None:
    built = phases.build(
        {"setup": 10.0, "call": 50.0, "teardown": 5.0},
        {
            "setup": {timing.INSTALL: 8.0},
            "call": {
                timing.RESTART: 12.0,
                timing.CONFIG_CHANGE: 3.0,
                timing.SUBMIT: 1.0,
                timing.WAIT: 30.0,
                timing.OBSERVE: 2.0,
            },
        },
    )
    assert built == {
        "setup": 25.0,
        "submit": 1.0,
        "wait": 30.0,
        "observe": 2.0,
        "other": 2.0,
        "cleanup": 5.0,
        "setupParts": {"install": 8.0, "configChange": 3.0, "restart": 12.0},
    }
    assert sum(built[name] for name in phases.TOP_LEVEL) == 65.0
    assert phases.slowest_phase(built) == ("wait", 30.0)
    assert phases.build({}, {}) is None


def test_slowest_lines_rank_longest_first_and_name_the_slowest_phase() -> None:
    items = [
        phases.Timed(f"T{i}[legacy]::test_t", float(i), {"wait": i / 2, "setup": 0})
        for i in range(15)
    ] + [phases.Timed("Old[legacy]::test_old", 100.0, None)]
    lines = phases.slowest_lines(items)
    assert len(lines) == phases.SLOWEST_COUNT
    assert lines[0] == "  100.0 s  Old[legacy]::test_old"
    assert lines[1] == "   14.0 s  T14[legacy]::test_t; slowest phase wait 7.0 s"
    assert "T5[" not in "\n".join(lines)


TIMED_SUITE = textwrap.dedent(
    """
    import itertools
    import pytest
    from conformance.harness.cluster import timing, watching
    from plumbing.waiting import NotYet

    def third_poll():
        polls = itertools.count()
        return lambda: next(polls) >= 2 or NotYet("not the third poll yet")

    @pytest.mark.conformance(short_name="Timed", clauses=["WPC-POD-001"])
    def test_timed():
        with timing.timed(timing.SUBMIT):  # a wait inside counts as the submission
            watching.until(third_poll(), timeout=5, interval=0.01, describe="3rd")
        watching.until(third_poll(), timeout=5, interval=0.01, describe="3rd")
    """
)


def test_a_run_records_every_items_phases_and_prints_the_slowest(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(test_timed=TIMED_SUITE)
    report = suite.path / "reports" / "conformance-fake.yaml"
    result = suite.runpytest(*wpc_args("--wpc-report", str(report)))
    result.assert_outcomes(passed=2)
    doc = yaml.safe_load(report.read_text())
    documents.validate(doc)
    for test in doc["tests"]:
        timed = test["phases"]
        assert set(timed) == {*phases.TOP_LEVEL, "setupParts"}
        assert sum(timed[n] for n in phases.TOP_LEVEL) == pytest.approx(
            test["durationSeconds"], abs=0.01
        )
        assert timed["wait"] >= 0.02
        assert timed["submit"] >= 0.02
    result.stdout.fnmatch_lines(
        ["Slowest items (2):", "*Timed[[]legacy[]]::test_timed; slowest phase *"]
    )


def test_a_report_without_phases_still_validates() -> None:
    committed = Path(
        "docs/results/reference-kind-2026-11-24/conformance-reference.yaml"
    )
    doc = yaml.safe_load(committed.read_text())
    assert all("phases" not in test for test in doc["tests"])
    documents.validate(doc)


def test_a_layout_divergence_item_has_no_phases(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_observing=textwrap.dedent(
            """
            import pytest

            @pytest.mark.conformance(short_name="Observing", clauses=["WPC-POD-001"])
            def test_observing(observations, wpc_layout):
                observations.record("nodes.main.exitCode", wpc_layout)
            """
        )
    )
    report = suite.path / "reports" / "conformance-fake.yaml"
    suite.runpytest(*wpc_args("--wpc-report", str(report)))
    doc = yaml.safe_load(report.read_text())
    kinds = {t["kind"]: "phases" in t for t in doc["tests"]}
    assert kinds == {"scenario": True, "divergence": False}
