"""We test these aspects of the conformance suite against broken reference implementations:

- for every fault in `controls.yaml` (one parametrized test each, in table order),
  the suite installed with that fault (proved running in its controller: the Lease
  annotation, see `runner.check_fault`) fails each killer test by an assertion
  naming one of the clauses the fault breaks (a timeout or a harness error is "not
  caught") and passes each canary: the suite notices the broken clause and nothing
  else (the faults run a few at a time, each in instances of its
  own, when the first test asks for its verdict);
- a pending row skips with its reason; it never passes;
- rows with `slice: false` are marked `negative_extra`: `make test` leaves them out
  (`-m "... and not negative_extra"`), `make negative-controls` runs them;
- the session writes `reports/negative-controls.yaml` with the mutation score (see
  `conftest.py`).

Matrix: the faults of the table, each in the layouts of its tests. Needs the local
cluster (`-m cluster`); each fault's instances live in `wpc-neg-<fault>-<layout>`
and are uninstalled (awaited) after its run.
"""

from __future__ import annotations

import pytest

from tests.negative import controls
from tests.negative import runner
from tests.negative import scoring
from tests.negative.batching import record

pytestmark = [pytest.mark.cluster, pytest.mark.slow, pytest.mark.negative]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "control" in metafunc.fixturenames:
        rows = controls.load()
        params = [
            pytest.param(r, marks=() if r.slice else (pytest.mark.negative_extra,))
            for r in rows
        ]
        metafunc.parametrize("control", params, ids=[r.fault for r in rows])


def test_the_suite_fails_the_killers_and_passes_the_canaries_of_each_fault(
    control, negative_verdicts
):
    if control.status == controls.CHAOS:
        # Not part of this suite's score: tests/chaos/test_negative_controls.py judges it.
        pytest.skip(f"chaos: {control.reason}")
    if control.status == controls.PENDING:
        record(scoring.judge(control, {}, duration=0.0))
        pytest.skip(f"pending: {control.reason}")
    outcome = negative_verdicts.get(control)
    if isinstance(outcome, Exception):
        raise outcome
    assert outcome.status == scoring.KILLED, "\n".join(
        [f"fault {control.fault} is {scoring.label(outcome.status)}:"]
        + [f"  {p}" for p in outcome.problems]
        + [f"  details: {runner.run_dir(control, negative_verdicts.target)}"]
    )
