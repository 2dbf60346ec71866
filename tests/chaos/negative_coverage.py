"""The chaos negative controls, and which experiments have none.

`CONTROLS` is the one list of chaos negative controls: a deliberate fault of
the reference (`reference_impl/controller/faults.py`, chaos section, or one of
its other faults that an experiment also catches), the experiment that must
catch it, the layout, and the probe or invariant that must report it.
`tests/chaos/test_negative_controls.py` runs each row on a cluster.

Which experiments lack a control is computed, never written down: the
experiment catalogue is every document under `chaos/experiments/` with the
layouts it declares (`experimenting.cases`), so a new experiment shows up here
uncovered until a row names it. `python -m tests.chaos.negative_coverage`
prints that table (`make chaos-negative-controls` ends with it) and exits 0:
a missing control is reported, not an error of the run; a row naming an
experiment or layout the catalogue lacks is invalid input (exit 10).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from chaos.suite import experimenting
from conformance import contract
from conformance.exitcodes import ExitCode


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

    @property
    def id(self) -> str:
        """The row's pytest id (`-k` selects it)."""
        return f"{self.fault}-{self.experiment}-{self.layout}"


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
    # Issue 28: a control for every experiment that had none. A fault the suite
    # already has serves another experiment when that experiment's probe sees it.
    Control(
        "forget-in-flight-pods",
        "controller-crash-loop-through-dag",
        "legacy",
        probe="workflow_is_completed",
    ),
    Control(
        "no-retry-pod-deleted",
        "pod-deleted-during-premain",
        "initless",
        probe="step_has_new_pod",
    ),
    Control(
        # The deleted worker's pod ends `Error: pod deleted`; without the retry
        # the experiment's new pod never comes (kind, two workers).
        "no-retry-pod-deleted",
        "worker-deleted-while-main-runs",
        "legacy",
        probe="step_has_new_pod",
    ),
    # A retry pinned to the worker its attempt ran on (`In` for `NotIn`): drained,
    # that worker is cordoned and the retry's main never runs; frozen, the worker
    # is thawed and takes the retry back, on the same node.
    Control(
        "retry-on-failed-host",
        "worker-drained-while-main-runs",
        "legacy",
        probe="main_is_running",
    ),
    Control(
        "retry-on-failed-host",
        "worker-frozen-while-main-runs",
        "legacy",
        probe="retry_ran_elsewhere",
    ),
    Control(
        "pending-deleted-errors",
        "pod-deleted-before-main-starts",
        "legacy",
        probe="node_is",
    ),
    Control(
        "aux-failure-ignored",
        "wait-killed-while-main-runs",
        "legacy",
        probe="node_is",
    ),
    Control(
        "aux-failure-ignored",
        "artifact-repository-down-during-upload",
        "initless",
        probe="node_is",
    ),
    Control(
        "main-message-first",
        "supervisor-killed-before-ready",
        "initless",
        probe="node_is",
    ),
    Control(
        "main-message-first",
        "status-marker-never-appears",
        "initless",
        probe="node_is",
    ),
    Control(
        "main-message-first",
        "input-artifact-unfetchable",
        "initless",
        probe="node_is",
    ),
    Control(
        "start-error-as-error",
        "executor-binary-missing-from-image-volume",
        "initless",
        probe="node_is",
    ),
    Control(
        "forget-in-flight-pods",
        "controller-cut-off-from-apiserver",
        "legacy",
        probe="workflow_is_completed",
    ),
    # The node experiments. Not `forget-in-flight-pods` for apiserver-unavailable:
    # on the cluster (CI dry run, 2026-11-28) the experiment passed against it, so
    # the outage did not restart the controller with the pod in flight. The
    # controller that rides the outage out must still see the pod finish after it.
    Control(
        "no-rewatch-after-outage",
        "apiserver-unavailable",
        "legacy",
        probe="workflow_is_completed",
    ),
    # A kubelet or containerd restart leaves the pod alone but cuts every exec
    # session through it: a controller that follows main that way errors the node.
    # Legacy: main runs about 0.8 s before the restart there (0.4 s init-less),
    # time for the session to open first.
    Control(
        "follow-main-by-exec",
        "kubelet-restarted-while-main-runs",
        "legacy",
        probe="workflow_is_completed",
    ),
    Control(
        "follow-main-by-exec",
        "containerd-restarted-while-main-runs",
        "legacy",
        probe="workflow_is_completed",
    ),
    # The outage cuts that session too (it runs through the API server).
    Control(
        "follow-main-by-exec",
        "apiserver-unavailable",
        "initless",
        probe="workflow_is_completed",
    ),
)


@dataclass(frozen=True)
class Coverage:
    """One experiment of the catalogue, its layouts and the controls naming it."""

    experiment: str
    layouts: tuple[str, ...]
    controls: tuple[Control, ...]


def catalogue(
    directory: Path = experimenting.EXPERIMENTS_DIR,
) -> dict[str, tuple[str, ...]]:
    """Every experiment under `directory` and the layouts it declares."""
    found: dict[str, tuple[str, ...]] = {}
    for path, layout in experimenting.cases(contract.LAYOUTS, directory):
        found[path.stem] = (*found.get(path.stem, ()), layout)
    return found


def problems(
    controls: tuple[Control, ...], experiments: dict[str, tuple[str, ...]]
) -> list[str]:
    """Rows naming an experiment not in the catalogue or a layout it does not run in."""
    found = []
    for control in controls:
        layouts = experiments.get(control.experiment)
        if layouts is None:
            found.append(f"{control.id}: no experiment {control.experiment!r}")
        elif control.layout not in layouts:
            found.append(
                f"{control.id}: {control.experiment} runs in {', '.join(layouts)} only"
            )
        if (control.probe is None) == (control.invariant is None):
            found.append(f"{control.id}: name exactly one probe or invariant")
    return found


def coverage(
    controls: tuple[Control, ...] = CONTROLS,
    directory: Path = experimenting.EXPERIMENTS_DIR,
) -> list[Coverage]:
    """Each experiment of the catalogue with its controls, in the catalogue's order."""
    return [
        Coverage(name, layouts, tuple(c for c in controls if c.experiment == name))
        for name, layouts in catalogue(directory).items()
    ]


def uncovered(
    controls: tuple[Control, ...] = CONTROLS,
    directory: Path = experimenting.EXPERIMENTS_DIR,
) -> list[Coverage]:
    """The experiments that no chaos negative control names."""
    return [row for row in coverage(controls, directory) if not row.controls]


def table(rows: list[Coverage]) -> str:
    """Every experiment and its controls; the ones without one listed last."""
    covered = [r for r in rows if r.controls]
    missing = [r for r in rows if not r.controls]
    width = max((len(r.experiment) for r in rows), default=10)
    lines = [
        f"chaos negative controls: {len(covered)} of {len(rows)} experiments have "
        f"one, {len(missing)} have none",
    ]
    lines += [
        f"  {r.experiment:<{width}}  "
        + ", ".join(f"{c.fault} [{c.layout}]" for c in r.controls)
        for r in covered
    ]
    if missing:
        lines += ["", "experiments without a chaos negative control:"]
        lines += [
            f"  {r.experiment:<{width}}  layouts: {', '.join(r.layouts)}"
            for r in missing
        ]
    return "\n".join(lines)


def main() -> int:
    """Print the table; exit 10 when a row names no experiment of the catalogue."""
    wrong = problems(CONTROLS, catalogue())
    if wrong:
        print(
            "\n".join(["chaos negative controls: bad rows:", *wrong]), file=sys.stderr
        )
        return int(ExitCode.INVALID_INPUT)
    print(table(coverage()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
