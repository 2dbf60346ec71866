"""Every wait of the suite, named, documented and scaled in one place.

A wait that checks a limit the spec sets (the 30 s stale-marker rule, the
120 s plugin-socket wait) says so in its docstring; the others are harness
budgets sized for a small single-node cluster with images already loaded.
`--timeout-scale` multiplies the harness budgets only: a bound the spec sets
(a field whose docstring gives its "Max value for a conformant implementation"),
the timing tolerance added to such bounds, the spec's cadences and the poll
interval stay as they are, so a slow cluster gets more patience but a slow
implementation never passes a clause it breaks (at scale 3 a 13 s heartbeat
must still fail "every 5 s"). The report records the factor.

The factor is a finite number of at least 1 (`checked_scale`): a NaN deadline
never comes, so a NaN wait never runs out; and a factor below 1 would also
shrink the windows in which nothing must happen (`unprocessed_window`), so a
foreign controller that processes the ownership canary a second late would go
unnoticed.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from conformance.errors import DataError


@dataclass(frozen=True)
class Timeouts:
    """Named timeouts in seconds; `scaled()` returns a multiplied copy."""

    api_call: float = 30.0
    """One Kubernetes API request (create, get, patch); harness budget."""

    namespace_ready: float = 30.0
    """A test namespace and its executor RBAC exist; harness budget."""

    namespace_deleted: float = 180.0
    """A test namespace is gone after cleanup (finalizers stripped first)."""

    controller_ready: float = 300.0
    """A controller instance is available after install or restart."""

    pod_created: float = 60.0
    """The controller creates the pod of a pending node; no spec limit."""

    workflow_completed: float = 180.0
    """A short workflow (hello-world size) reaches a completed phase.

    No spec limit: generous, as the first pod on a node may still unpack images.
    """

    status_marker_appears: float = 30.0
    """The supervisor writes its first RUNNING marker.

    Max value for a conformant implementation: 30 s (the emissary presumes the
    supervisor dead when no marker appears within 30 s).
    """

    status_marker_stale: float = 30.0
    """A RUNNING marker older than this means a dead supervisor.

    Max value for a conformant implementation: 30 s.
    """

    heartbeat_interval: float = 5.0
    """The supervisor rewrites RUNNING at least this often.

    Max value for a conformant implementation: 5 s.
    """

    plugin_socket: float = 120.0
    """An artifact plugin's socket appears.

    Max value for a conformant implementation: 120 s per plugin.
    """

    pod_deleted_reported: float = 60.0
    """A node whose pod vanished is marked `Error: pod deleted`.

    Upstream waits RECENTLY_STARTED_POD_DURATION (10 s) first; the rest is
    reconciliation latency.
    """

    node_phase_reported: float = 60.0
    """The controller records a node's phase after its pod's changed; harness budget.

    No spec limit. Upstream v4.1.2 writes the Workflow on its own schedule (about
    every 10 s while a pod starts), so a pod can run for seconds before its node
    reads `Running`.
    """

    task_result_reported: float = 60.0
    """The executor's WorkflowTaskResult is marked complete; harness budget."""

    status_finalizer_removed: float = 150.0
    """The controller removes `workflows.argoproj.io/status` from a deleted pod.

    Max value for a conformant implementation: 120 s (upstream's backstop of
    max(podGC delay, 2 min)), plus reconciliation latency.
    """

    cleanup: float = 60.0
    """The spec's *cleanup timeout*: a completed node's pod is cleaned up.

    Covers the `completed` label, the status finalizer's removal, pod GC
    deletes (after any `deleteDelayDuration`) and a workflow's completion
    once its pods have terminated. The spec names the limit without a value;
    this is the suite's budget for it.
    """

    controller_stopped: float = 10.0
    """A gracefully deleted controller pod is gone (WPC-RECOVERY-011).

    Max value for a conformant implementation: 10 s after SIGTERM (the timing
    tolerance is added), well inside Kubernetes' default 30 s grace period.
    """

    timing_tolerance: float = 3.0
    """Slack added to the upper bound of a timing clause (never to a lower bound).

    Covers the 1 s granularity of container timestamps and the delay between
    an event and the signal that follows it (the spec's *named tolerance*).
    """

    user_command_started: float = 120.0
    """A workflow pod's user commands are running (probe file written).

    No spec limit: includes scheduling, image unpacking and, in the initless
    layout, the supervisor's pre-main phase.
    """

    webhook_ready: float = 60.0
    """The suite's injecting admission webhook serves and is called; harness budget."""

    config_propagation: float = 90.0
    """The spec's *config-propagation timeout*: a ConfigMap change (such as
    `initlessPod.enabled`) shows in pods built afterwards.

    No spec limit; Argo reacts to its ConfigMap within seconds. Includes
    creating the probe pods that reveal the change.
    """

    artifact_server_ready: float = 60.0
    """The suite's HTTP artifact server pod in a test namespace is Ready; harness budget."""

    unprocessed_window: float = 5.0
    """How long a Workflow no instance may process is watched for a status or pods.

    The spec gives no window; the watch starts only after a Workflow submitted
    later to a serving instance has completed.
    """

    exclusive_lock: float = 900.0
    """A scenario waits for a host-wide lock (`conformance.harness.instances.locking`) held by
    scenarios it must not overlap with, up to two per layout; harness budget."""

    evidence: float = 30.0
    """Collecting one piece of failure evidence (a log, an exec)."""

    install: float = 1800.0
    """One profile command (build, install, restart); may compile from source."""

    prepare_lock: float = 3600.0
    """A run waits for another run on this host to finish preparing the same cluster
    (`locking.PREPARE`): its builds, several profile commands of up to `install` each
    when they compile from source; harness budget."""

    poll_interval: float = 1.0
    """Pause between polls when no watch fits; not scaled below 0.1 s."""

    def scaled(self, factor: float) -> Timeouts:
        """Return a copy with every harness budget multiplied by `factor`.

        SPEC_BOUNDS (the spec's limits, their tolerance and cadences) and the
        poll interval are not the harness's patience and stay as they are.
        """
        checked_scale(factor, "timeout scale")
        changes = {
            f.name: getattr(self, f.name) * factor
            for f in dataclasses.fields(self)
            if f.name not in SPEC_BOUNDS and f.name != "poll_interval"
        }
        return dataclasses.replace(self, **changes)


def checked_scale(factor: float, option: str) -> float:
    """`factor` if it is a valid timeout scale; DataError naming `option` if not.

    Every front end that takes `--timeout-scale` (or the ini key, or chaos's
    `wpc_timeout_scale`) checks it here, so they all refuse the same values.
    """
    if not (math.isfinite(factor) and factor >= 1):
        raise DataError(
            f"{option} {factor}: must be a finite number of at least 1 (1 is the "
            "default; a scale below 1 would shorten the windows in which nothing "
            "must happen)"
        )
    return factor


SPEC_BOUNDS = frozenset(
    {
        "status_marker_appears",
        "status_marker_stale",
        "heartbeat_interval",
        "plugin_socket",
        "status_finalizer_removed",
        "controller_stopped",
        "timing_tolerance",
    }
)
"""Fields `--timeout-scale` never changes: limits the spec sets for the
implementation (and the tolerance added to them), not the suite's patience."""
