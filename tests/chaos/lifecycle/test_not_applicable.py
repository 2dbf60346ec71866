"""An experiment that cannot run here is reported not applicable, through chaoslib itself.

We test these aspects, each by running a tiny experiment document through
chaoslib's real `run_experiment` with the WPC control (no cluster: the control's
cluster access is faked, the activities are the real ones):

- declared needs the provider or the profile does not offer: the experiment is
  `not-applicable` with the reason in the ChaosReport, its JUnit twin and its
  HTML page, before anything is installed: no hypothesis, method or rollback
  activity runs;
- the backstop: an activity that raises `Unsupported` (the real
  `step_runs_on_a_free_worker` on a single-node cluster, undeclared needs) stops
  the method there; the later activities do not run (they would fail for want of
  the node it should have recorded and turn the verdict into `error`), the
  rollbacks do, and the entry is `not-applicable` with the activity's message;
- the requirement table: what each provider and profile offers; a capability an
  activity needs and the provider lacks is `Unsupported`, saying what it cannot do;
- on the local cluster (cluster-marked): `chaos run` of each worker experiment
  ends not-applicable in seconds, installing nothing and leaving no namespace.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from xml.etree import ElementTree

import pytest
import yaml
from chaoslib.experiment import run_experiment

from chaos import requirements
from chaos.lifecycle import control
from chaos.lifecycle import instances
from chaos.node import placement
from chaos.suite import experimenting
from conformance.implementations import preparing
from conformance.implementations import profiles
from tests.chaos.node.test_worker_probes import CP
from tests.chaos.node.test_worker_probes import FakeCore
from tests.chaos.node.test_worker_probes import _node
from tests.chaos.node.test_worker_probes import _pod

RAN: list[str] = []
"""The tiny experiment's own activities append their name here when they run."""


def steady() -> bool:
    """The tiny experiment's steady-state probe."""
    RAN.append("steady")
    return True


def later_step() -> str:
    """A method step after the fault (must not run once the fault is unsupported)."""
    RAN.append("later_step")
    return "ran"


def _python(module: str, func: str, **arguments: Any) -> dict[str, Any]:
    provider: dict[str, Any] = {"type": "python", "module": module, "func": func}
    if arguments:
        provider["arguments"] = arguments
    return provider


def _experiment(reports: Path, *, requires: list[str]) -> dict[str, Any]:
    here = __name__
    extension: dict[str, Any] = {
        "name": "wpc",
        "experiment": "tiny-worker-fault",
        "layouts": ["legacy"],
    }
    if requires:
        extension["requires"] = requires
    return {
        "version": "1.0.0",
        "title": "A worker fault on a single-node cluster",
        "description": "test",
        "extensions": [extension],
        "configuration": {
            "wpc_provider": "local",
            "wpc_layout": "legacy",
            "wpc_reports_dir": str(reports),
            "wpc_instance": "external",
        },
        "controls": [
            {
                "name": "wpc",
                "provider": {"type": "python", "module": "chaos.lifecycle.control"},
            }
        ],
        "steady-state-hypothesis": {
            "title": "steady",
            "probes": [
                {
                    "type": "probe",
                    "name": "steady",
                    "tolerance": True,
                    "provider": _python(here, "steady"),
                }
            ],
        },
        "method": [
            {
                "type": "probe",
                "name": "step-runs-on-a-free-worker",
                "provider": _python(
                    "chaos.node.placement", "step_runs_on_a_free_worker", step="work"
                ),
            },
            {
                "type": "action",
                "name": "later-step",
                "provider": _python(here, "later_step"),
            },
            {
                "type": "action",
                "name": "delete-the-worker",
                "provider": _python(
                    "chaos.node.workers", "delete_step_node", step="work"
                ),
            },
        ],
        "rollbacks": [
            {
                "type": "action",
                "name": "lift-faults",
                "provider": _python("chaos.node.actions", "lift_faults"),
            }
        ],
    }


@pytest.fixture
def single_node(monkeypatch):
    """The control's cluster access, faked: one node, which is the control plane."""
    RAN.clear()
    core = FakeCore()
    core.nodes = {"wpc-control-plane": _node("wpc-control-plane", CP)}
    core.pods = [_pod("step", "wpc-control-plane")]
    installs: list[Any] = []
    monkeypatch.setattr(instances, "locate", lambda settings: ("kubeconfig", "kubectl"))
    monkeypatch.setattr(
        control.kube, "connect", lambda kubeconfig: SimpleNamespace(core=core, api=None)
    )
    monkeypatch.setattr(preparing, "check_marker", lambda clients, allow_foreign: {})
    monkeypatch.setattr(
        instances, "install", lambda *args, **kwargs: installs.append(args)
    )
    monkeypatch.setattr(
        placement.finding, "step_pods", lambda s, wf, step: [core.pods[0]]
    )
    return installs


def _entry(reports: Path) -> dict[str, Any]:
    report = yaml.safe_load((reports / "chaos-reference.yaml").read_text())
    [entry] = report["experiments"]
    assert report["summary"]["notApplicable"] == 1
    return dict(entry)


def _junit_skip(reports: Path) -> str:
    suite = ElementTree.parse(reports / "chaos-reference.junit.xml").getroot()
    assert suite.get("skipped") == "1"
    assert (suite.get("errors"), suite.get("failures")) == ("0", "0")
    skipped = suite.find("testcase/skipped")
    assert skipped is not None
    return str(skipped.get("message"))


ALWAYS_ROLL_BACK = {"runtime": {"rollbacks": {"strategy": "always"}}}


def test_unmet_declared_needs_are_reported_before_anything_runs(
    tmp_path: Path, single_node
):
    journal = run_experiment(
        _experiment(tmp_path, requires=["worker-faults", "several-nodes"]),
        settings=ALWAYS_ROLL_BACK,
    )

    assert journal["status"] == "interrupted"
    assert RAN == []  # not the hypothesis, not the method
    assert journal["run"] == []
    assert journal["rollbacks"] == []
    assert single_node == []  # nothing installed
    entry = _entry(tmp_path)
    assert entry["outcome"] == "not-applicable"
    assert entry["reason"] == (
        "needs worker-faults (freeze or remove a whole worker node), which the local "
        "provider does not offer; needs several-nodes (a second schedulable node to "
        "run a retry on), which the local provider does not offer"
    )
    assert _junit_skip(tmp_path) == f"not-applicable: {entry['reason']}"
    page = (tmp_path / "chaos-reference.html").read_text()
    assert '<td class="not-applicable">not-applicable</td>' in page
    assert "not applicable: needs worker-faults" in page


def test_an_unsupported_activity_stops_the_method_and_is_not_applicable(
    tmp_path: Path, single_node
):
    journal = run_experiment(
        _experiment(tmp_path, requires=[]), settings=ALWAYS_ROLL_BACK
    )

    assert [r["activity"]["name"] for r in journal["run"]] == [
        "step-runs-on-a-free-worker"
    ]
    assert journal["run"][0]["status"] == "failed"
    assert "Unsupported" in journal["run"][0]["exception"][-1]
    assert [r["status"] for r in journal["rollbacks"]] == ["succeeded"]
    assert RAN == ["steady"]  # the hypothesis before; nothing after the fault
    entry = _entry(tmp_path)
    assert entry["outcome"] == "not-applicable", entry
    assert entry["reason"] == (
        "step_runs_on_a_free_worker: Unsupported: step runs on "
        "wpc-control-plane, a control-plane node: worker faults need a cluster "
        "with workers"
    )
    assert [(c["activity"], c["kind"]) for c in entry["failedChecks"]] == [
        ("step_runs_on_a_free_worker", "unsupported")
    ]
    assert _junit_skip(tmp_path).startswith("not-applicable: step_runs_on_a_free")


def _profile(tmp_path: Path, **changes: Any) -> profiles.Profile:
    data = yaml.safe_load(profiles.resolve("reference").read_text())
    data.update(changes)
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data))
    return profiles.load(str(path))


def test_what_providers_and_profiles_offer(tmp_path: Path):
    reference = profiles.load("reference")
    everything = sorted(requirements.KNOWN)
    assert (
        requirements.unmet(
            [
                "node-faults",
                "controller-restart",
                "status-finalizer",
                "executor-config",
            ],
            provider="local",
            profile=reference,
        )
        == []
    )
    assert [
        r.split()[1]
        for r in requirements.unmet(everything, provider="kind", profile=reference)
    ] == ["node-faults"]
    upstream = profiles.load("argo-workflows")
    [why] = requirements.unmet(["executor-config"], provider="local", profile=upstream)
    assert why.startswith("needs executor-config (swap the executor image")
    assert "the profile argo-workflows" in why
    no_finalizer = _profile(tmp_path, features=["RETRY"])
    assert [
        r.split()[1]
        for r in requirements.unmet(everything, provider="kind", profile=no_finalizer)
    ] == ["node-faults", "status-finalizer"]
    commands = dict(
        yaml.safe_load(profiles.resolve("reference").read_text())["commands"]
    )
    no_restart = _profile(tmp_path, commands={**commands, "restart": []})
    assert (
        "controller-restart"
        in requirements.unmet(
            ["controller-restart"], provider="local", profile=no_restart
        )[0]
    )
    once = (n for n in ["node-faults"])  # read twice: checked, then judged
    assert len(requirements.unmet(once, provider="kind", profile=reference)) == 1
    with pytest.raises(ValueError, match="unknown requirements"):
        requirements.unmet(["node-fault"], provider="local", profile=reference)


def test_a_capability_the_provider_lacks_is_unsupported_naming_what_it_cannot():
    from chaos.errors import Unsupported
    from clusters import faults

    assert (
        requirements.capability(
            faults.of("local"), provider="local", cannot="inject node faults"
        )
        is not None
    )
    with pytest.raises(
        Unsupported, match=r"^the local provider cannot take a worker node away$"
    ):
        requirements.capability(
            faults.workers_of("local"),
            provider="local",
            cannot="take a worker node away",
        )


NOT_APPLICABLE_WITHIN_SECONDS = 60.0
"""`chaos run` of an experiment that does not apply: start-up, the declarations, one
report entry; an install alone takes minutes."""


@pytest.mark.cluster
@pytest.mark.chaos
@pytest.mark.parametrize(
    "name",
    [
        "worker-deleted-while-main-runs",
        "worker-drained-while-main-runs",
        "worker-frozen-while-main-runs",
    ],
)
def test_on_the_local_cluster_a_worker_experiment_is_not_applicable_at_once(
    tmp_path: Path, name: str
):
    target = experimenting.Target(reports_dir=tmp_path, instance="auto")
    started = time.monotonic()

    entry = experimenting.run(
        experimenting.EXPERIMENTS_DIR / f"{name}.yaml", layout="legacy", target=target
    )

    assert entry["outcome"] == "not-applicable", experimenting.explain(entry)
    assert "which the local provider does not offer" in entry["reason"]
    assert time.monotonic() - started < NOT_APPLICABLE_WITHIN_SECONDS
    assert not entry["leaks"]
    assert not (tmp_path / "chaos" / "logs").exists()  # no profile command ran
