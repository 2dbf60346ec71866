"""Every chaos experiment passes against the implementation, in each of its layouts.

We test these aspects, per experiment document in chaos/experiments/ and per
layout it declares (selected with WPC_CHAOS_LAYOUT=legacy|initless|both):

- `chaos run` of the document ends with a ChaosReport entry whose outcome is
  `passed`: steady state before and after, the fault's injection and the
  workload's vulnerable state verified, no probe expectation failed, and the
  recorded history breaks no invariant;
- it leaves no namespace labelled for it behind (the suite's leak check);
- an experiment that needs what the provider or the profile does not offer
  (its `requires`) is reported `not-applicable` with the reason, and skipped
  here with it, without installing anything for it; one found not applicable
  during its run (`Unsupported`) is skipped with its reason too, so the report
  and pytest agree (only the declared reason is an accepted skip in `make test`).

The chaos controller instances are installed once for the module (the
profile's prepare and install, as the suite does, under a host-wide lock, since
`wpc chaos run` runs one pytest process per layout side by side; see
`chaos.suite.parallel`) and removed at the end;
`reports/chaos-<impl>.yaml` loses the old entries of the selected runs first. Matrix: the
implementation named by WPC_CHAOS_IMPLEMENTATION (default reference).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaos.lifecycle import instances
from chaos.lifecycle import judging
from chaos.settings import ChaosSettings
from chaos.settings import parse_vars
from chaos.suite import experimenting
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import layouts
from conformance.harness.instances import locking


def _layouts() -> tuple[str, ...]:
    chosen = os.environ.get("WPC_CHAOS_LAYOUT", layouts.BOTH)
    return layouts.parse_selection(chosen, source="WPC_CHAOS_LAYOUT")


def _target() -> experimenting.Target:
    """The target of this process, with its profile loaded (once: the cases share it)."""
    return experimenting.Target(
        implementation=os.environ.get("WPC_CHAOS_IMPLEMENTATION", "reference"),
        # `source=...,ref=v4.1.2` for upstream built from a source tree (make chaos
        # PROFILE_VARS="source=... ref=..."): the experiments' own processes get it too.
        profile_vars=os.environ.get("WPC_CHAOS_PROFILE_VARS", ""),
        provider=os.environ.get("WPC_CHAOS_PROVIDER", "local"),
        cluster=os.environ.get("WPC_CHAOS_CLUSTER", "wpc"),
        # `wpc chaos run --reports DIR` sets it, so the report lands where the
        # runner reads it (each run of `--repeat N` has a directory of its own).
        reports_dir=Path(
            os.environ.get("WPC_CHAOS_REPORTS_DIR") or experimenting.REPORTS_DIR
        ),
    ).loaded()


@pytest.fixture(scope="module")
def chaos_report(request: pytest.FixtureRequest) -> experimenting.Target:
    """The target, its report cleared of the entries of the selected runs."""
    target = _target()
    selected = {
        (
            experimenting.name_of(item.callspec.params["path"]),
            item.callspec.params["layout"],
        )
        for item in request.session.items
        if hasattr(item, "callspec") and "path" in item.callspec.params
    }
    judging.drop_entries(
        judging.report_path(target.reports_dir, experimenting.profile_name(target)),
        selected,
    )
    return target


@pytest.fixture(scope="module")
def chaos_target(
    chaos_report: experimenting.Target,
) -> Iterator[experimenting.Target]:
    """The chaos instances of the selected layouts, installed for the module.

    Asked for only by an experiment that applies: one that does not needs none.
    """
    target = chaos_report
    settings = ChaosSettings(
        provider=target.provider,
        cluster=target.cluster,
        implementation=target.implementation,
        profile_vars=parse_vars(target.profile_vars),
        reports_dir=target.reports_dir,
    )
    timeouts = Timeouts()
    kubeconfig, kubectl = instances.locate(settings)
    profile = experimenting.profile_of(target)
    drv = instances.driver(
        settings, profile, kubeconfig=kubeconfig, kubectl=kubectl, timeouts=timeouts
    )
    chosen = [instances.chaos_instance(profile, layout) for layout in _layouts()]
    with locking.held(
        "chaos-install",
        cluster=f"{target.provider}/{target.cluster}",
        holder=f"chaos instances {', '.join(i.instance_id for i in chosen)}",
        timeout=timeouts.install,
        interval=timeouts.poll_interval,
    ):
        instances.install(drv, chosen, settings=settings)
    try:
        yield target
    finally:
        instances.uninstall(drv, chosen)


CASES = [
    pytest.param(
        path,
        layout,
        id=f"{path.stem}-{layout}",
        marks=[pytest.mark.node_fault] if experimenting.hits_the_node(path) else [],
    )
    for path, layout in experimenting.cases(_layouts())
]


@pytest.mark.cluster
@pytest.mark.chaos
@pytest.mark.parametrize(("path", "layout"), CASES)
def test_the_experiment_passes_with_its_injection_verified(
    chaos_report: experimenting.Target,
    request: pytest.FixtureRequest,
    path: Path,
    layout: str,
) -> None:
    """The experiment's ChaosReport entry passed, its injection seen, nothing leaked.

    Or it is not applicable here, and the report says so with the reason.
    """
    if experimenting.unmet(path, chaos_report):
        # `chaos run` finds the same before it installs anything, and reports it.
        entry = experimenting.run(path, layout=layout, target=chaos_report)
        assert entry["outcome"] == "not-applicable", experimenting.explain(entry)
        assert not entry["leaks"], experimenting.explain(entry)
        pytest.skip(f"not applicable: {entry['reason']}")
    chaos_target = request.getfixturevalue("chaos_target")
    entry = experimenting.run(path, layout=layout, target=chaos_target)
    assert not entry["leaks"], experimenting.explain(entry)
    if entry["outcome"] == "not-applicable":
        # The backstop (an activity found it could not inject its fault, a kind
        # cluster without a second worker): the report and pytest agree. Not a
        # declared skip: under WPC_STRICT_SKIPS it still fails the session.
        pytest.skip(f"not applicable: {entry['reason']}")
    assert entry["outcome"] == "passed", experimenting.explain(entry)
    assert entry["injectionVerified"]["verified"]
    assert not entry["leaks"], experimenting.explain(entry)
