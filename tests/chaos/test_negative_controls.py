"""Chaos negative controls: each broken reference variant is caught by its experiment.

We test these aspects, one row per deliberate fault and experiment that must
catch it (the chaos section of `reference_impl/controller/faults.py`, or
another fault of the reference that the experiment's probe sees), each
installed through the `reference-faulty` profile in a chaos instance of its
own:

- the experiment that targets the fault ends `failed` (never `passed`, never
  `injection-unverified`: the fault must be caught after it landed), and
- the check the row names caught it: a probe (an activity in `failedChecks`)
  or an invariant (a violation in the recorded history).

The rows are `negative_coverage.CONTROLS`, which also says which experiments
have none. The healthy reference passing the same experiments is
`test_experiments.py`. The cluster is the one `WPC_CHAOS_PROVIDER` and
`WPC_CHAOS_CLUSTER` name (default: the local one); a row whose experiment the
provider cannot fault (a worker deleted, on the single-node local cluster) is
skipped as not applicable there, as `make chaos` reports it, and runs on kind
(`make chaos-negative-controls PROVIDER=kind CLUSTER=wpc-kind`).
Matrix: the layout in each row.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chaos.suite import experimenting
from tests.chaos.negative_coverage import CONTROLS
from tests.chaos.negative_coverage import Control

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.cluster
@pytest.mark.chaos
@pytest.mark.negative
@pytest.mark.parametrize("control", CONTROLS, ids=[c.id for c in CONTROLS])
def test_the_broken_variant_is_caught_by_its_check(control: Control) -> None:
    target = experimenting.Target(
        implementation="reference-faulty",
        profile_vars=f"fault={control.fault}",
        provider=os.environ.get("WPC_CHAOS_PROVIDER", "local"),
        cluster=os.environ.get("WPC_CHAOS_CLUSTER", "wpc"),
        reports_dir=ROOT / "reports" / "chaos-negative" / control.fault,
        instance="auto",
    )
    path = experimenting.EXPERIMENTS_DIR / f"{control.experiment}.yaml"
    unmet = experimenting.unmet(path, target)
    if unmet:
        pytest.skip(f"not applicable on {target.provider}: {'; '.join(unmet)}")
    entry = experimenting.run(path, layout=control.layout, target=target)
    explained = experimenting.explain(entry)
    assert entry["outcome"] == "failed", explained
    if control.probe is not None:
        failed = {c["activity"] for c in entry.get("failedChecks") or []}
        assert control.probe in failed, explained
    if control.invariant is not None:
        broken = {v["invariant"] for v in entry["violations"]}
        assert control.invariant in broken, explained
