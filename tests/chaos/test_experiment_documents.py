"""Every experiment document is a valid chaostoolkit experiment with WPC's shape.

We test these aspects, per document in chaos/experiments/:

- chaoslib accepts it (syntax, and every python activity's module, function
  and arguments);
- it declares the `wpc` extension (name, layouts), the `chaos.lifecycle.control`
  control and the common configuration keys;
- its steady-state hypothesis checks the cluster and the controller;
- its method begins with `begin_experiment`, proves the vulnerable state and
  the injection with probes that record them, and its rollbacks end with
  `end_experiment` (settle, stop recording, delete the namespace);
- it declares exactly what its activities need from the provider and the
  profile (`requires`), so where it does not apply is known before a run: on
  the local provider with the reference profile that is exactly the three
  worker experiments, on kind exactly the node faults, and with upstream Argo's
  profile the executor-image swap too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from chaoslib.experiment import ensure_experiment_is_valid

from chaos import declarations
from chaos.settings import KEYS
from chaos.suite import experimenting

EXPERIMENTS = sorted(
    (Path(__file__).resolve().parents[2] / "chaos" / "experiments").glob("*.yaml")
)
VULNERABLE = {
    "main_is_running",
    "workflow_has_running_pods",
    "workflow_is_running",
    "init_is_running",
    "supervisor_is_in_premain",
    "main_waits_for_ready",
    "step_is_suspended",
    "step_runs_on_a_free_worker",
}
"""Probes that record the workload's vulnerable state."""
INJECTION = {
    "controller_is_gone",
    "controller_was_replaced",
    "pod_is_gone",
    "pod_is_held_by_finalizer",
    "container_is_terminated",
    "restart_controller_repeatedly",
    "restart_node_component",
    "cut_controller_off",
    "cut_step_pod_off",
    "status_marker_is_stale",
    "status_marker_never_appears",
    "executor_volume_is",
    "suspend_ended_while_down",
    "node_is_not_ready",
    "pod_is_evicted",
    "drain_step_node",
    "node_is_gone",
}
"""Activities that record proof that the fault landed."""


NEEDS = {
    "restart_node_component": "node-faults",
    "signal_step_container": "node-faults",
    "cut_controller_off": "node-faults",
    "cut_step_pod_off": "node-faults",
    "freeze_step_node": "worker-faults",
    "delete_step_node": "worker-faults",
    "step_runs_on_a_free_worker": "several-nodes",
    "stop_controller": "controller-restart",
    "start_controller": "controller-restart",
    "restart_controller": "controller-restart",
    "restart_controller_repeatedly": "controller-restart",
    "set_status_finalizer": "status-finalizer",
    "use_executor_image": "executor-config",
}
"""What an activity needs the provider or the profile to offer (`chaos.requirements`)."""


def _funcs(activities):
    return [a["provider"]["func"] for a in activities]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_the_document_is_a_valid_wpc_experiment(path):
    experiment = yaml.safe_load(path.read_text())
    ensure_experiment_is_valid(experiment)
    declared = declarations.of(experiment)
    assert declared.name == path.stem
    assert set(experiment["configuration"]) == set(KEYS)
    assert [c["provider"]["module"] for c in experiment["controls"]] == [
        "chaos.lifecycle.control"
    ]
    assert _funcs(experiment["steady-state-hypothesis"]["probes"]) == [
        "cluster_is_healthy",
        "controller_is_available",
    ]
    method = _funcs(experiment["method"])
    assert method[0] == "begin_experiment"
    assert VULNERABLE & set(method), "no probe records the vulnerable state"
    assert INJECTION & set(method), "no activity proves the injection"
    assert _funcs(experiment["rollbacks"])[-1] == "end_experiment"


def test_discovery_lists_every_activity_the_experiments_use():
    import chaos

    listed = {a["name"] for a in chaos.discover(discover_system=False)["activities"]}
    used = set()
    for path in EXPERIMENTS:
        experiment = yaml.safe_load(path.read_text())
        for block in ("method", "rollbacks"):
            used.update(_funcs(experiment[block]))
        used.update(_funcs(experiment["steady-state-hypothesis"]["probes"]))
    assert used <= listed, sorted(used - listed)


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_the_document_declares_what_its_activities_need(path):
    experiment = yaml.safe_load(path.read_text())
    used = _funcs(experiment["method"]) + _funcs(experiment["rollbacks"])
    needed = {NEEDS[f] for f in used if f in NEEDS}
    assert set(declarations.of(experiment).requires) == needed


def _not_applicable(provider: str, implementation: str = "reference") -> set[str]:
    target = experimenting.Target(provider=provider, implementation=implementation)
    return {p.stem for p in EXPERIMENTS if experimenting.unmet(p, target)}


WORKER_EXPERIMENTS = {
    "worker-deleted-while-main-runs",
    "worker-drained-while-main-runs",
    "worker-frozen-while-main-runs",
}


def test_where_each_experiment_applies_is_known_before_a_run():
    assert _not_applicable("local") == WORKER_EXPERIMENTS
    node = {
        p.stem
        for p in EXPERIMENTS
        if "node-faults" in declarations.of(yaml.safe_load(p.read_text())).requires
    }
    assert {"apiserver-unavailable", "wait-killed-while-main-runs"} <= node
    assert _not_applicable("kind") == node
    assert _not_applicable("local", "argo-workflows") == WORKER_EXPERIMENTS | {
        "executor-binary-missing-from-image-volume"
    }
