"""Chaos negative controls: each broken reference variant is caught by its experiment.

We test these aspects, one row per deliberate controller fault
(`reference_impl/controller/faults.py`, chaos section), each installed
through the `reference-faulty` profile in a chaos instance of its own:

- the experiment that targets the fault ends `failed` (never `passed`, never
  `injection-unverified`: the fault must be caught after it landed), and
- the check the row names caught it: a probe (an activity in `failedChecks`)
  or an invariant (a violation in the recorded history).

The healthy reference passing the same experiments is `test_experiments.py`.
Matrix: the layout in each row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from chaos.suite import experimenting

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Control:
    """A fault, the experiment that must catch it, and what must report it."""

    fault: str
    experiment: str
    layout: str
    probe: str | None = None
    """The activity whose expectation must fail."""
    invariant: str | None = None
    """The invariant the history must break."""


CONTROLS = (
    Control(
        "forget-in-flight-pods",
        "controller-down-while-main-runs",
        "legacy",
        probe="workflow_is_completed",
    ),
    Control(
        "double-pod-on-restart",
        "controller-killed-during-fan-out",
        "legacy",
        invariant="one-live-pod-per-node",
    ),
    Control(
        "early-finalizer-removal",
        "controller-down-across-completion-with-finalizer",
        "legacy",
        probe="pod_is_held_by_finalizer",
    ),
    Control(
        "no-retry-pod-deleted",
        "pod-deleted-while-main-runs",
        "initless",
        probe="step_has_new_pod",
    ),
    Control(
        "ignore-stale-heartbeat",
        "supervisor-frozen-before-ready",
        "initless",
        probe="container_is_terminated",
    ),
    Control(
        "oom-reported-as-error",
        "main-oom-killed",
        "legacy",
        probe="node_is",
    ),
    Control(
        "restart-suspend-timer",
        "controller-restarted-while-suspended",
        "legacy",
        probe="suspend_resumed_on_time",
    ),
    Control(
        "rerun-hook-on-restart",
        "controller-restarted-during-exit-hook",
        "legacy",
        probe="step_had_one_pod",
    ),
)


@pytest.mark.cluster
@pytest.mark.chaos
@pytest.mark.negative
@pytest.mark.parametrize(
    "control", CONTROLS, ids=[f"{c.fault}-{c.experiment}-{c.layout}" for c in CONTROLS]
)
def test_the_broken_variant_is_caught_by_its_check(control):
    target = experimenting.Target(
        implementation="reference-faulty",
        profile_vars=f"fault={control.fault}",
        reports_dir=ROOT / "reports" / "chaos-negative" / control.fault,
        instance="auto",
    )
    path = experimenting.EXPERIMENTS_DIR / f"{control.experiment}.yaml"
    entry = experimenting.run(path, layout=control.layout, target=target)
    explained = experimenting.explain(entry)
    assert entry["outcome"] == "failed", explained
    if control.probe is not None:
        failed = {c["activity"] for c in entry.get("failedChecks") or []}
        assert control.probe in failed, explained
    if control.invariant is not None:
        broken = {v["invariant"] for v in entry["violations"]}
        assert control.invariant in broken, explained
