"""Deliberate faults: negative controls for the conformance suite.

A conformance suite that never fails proves nothing. Each fault below makes the reference
controller break exactly one clause of the contract, so a test that claims to check that
clause can be shown to fail against it. One switch selects at most one fault: the
environment variable `WPC_REFERENCE_FAULT`, read once at start-up
(`ControllerSettings.from_env`). An unknown name is a start-up error that names the value.

Controller-side faults (this process misbehaves):

=======================  ==================================================================
name                     what breaks
=======================  ==================================================================
keep-old-layout          the pod layout chosen at start-up is kept; later `initlessPod`
                         changes in the ConfigMap are ignored
leave-finalizer          the `workflows.argoproj.io/status` finalizer is never removed from
                         pods whose workflow was deleted (delete handler, orphan and
                         deleting-pod paths)
main-message-first       on a main exit 65 the node message comes from `main`, not from the
                         supervisor (breaks the exit-65 precedence of `inferFailedReason`)
no-wait-for-ready-env    init-less pods lack `ARGO_WAIT_FOR_READY=true` on wrapped containers
wrong-container-order    user containers come before the aux container (`wait`/`supervisor`)
no-owner-reference       pods are created without the Workflow ownerReference
sidecar-stop-fails-node  a node whose main succeeded becomes `Failed` with the message of a
                         sidecar stopped with 137/143 (`templates/nodes/stopped_sidecars`)
terminate-with-sigkill   terminating a pod's containers (main done, shutdown, deadline)
                         sends SIGKILL where SIGTERM is due (`cleanup/cleaning`)
kill-default-not-pid1    the kill command for a container without argoexec (an injected
                         sidecar) is `/bin/sh -c "kill -N -1"`: every process but PID 1
kill-cmd-ignored         the `workflows.argoproj.io/kill-cmd-<container>` annotation is
                         ignored: containers get the kill command they would get without it
stopped-sidecar-message  a node whose main failed takes the message of a sidecar stopped
                         with 137/143 instead of main's (`templates/nodes/stopped_sidecars`)
downtime-success-noted   a Pod node whose `main` finished before this process started
                         (it completed while no controller ran) becomes `Succeeded`
                         with a message, not without one (`runtime/downtime.py`)
downtime-deleted-failed  a Running node, started before this process did, whose pod
                         vanished becomes `Failed`, not `Error`, with `pod deleted`
deleted-while-down-lost  a pod deleted before this process started, still held by the
                         status finalizer, is taken as gone: its node becomes `Error:
                         pod deleted` instead of being read from its container statuses
restart-skips-cleanup    pods created before this process started are never labelled
                         completed nor lose the status finalizer after their node is
                         done (clean-up after persist skips them)
claim-sibling-pods       a controller with instance ID `<stem>-initless` labels each pod
                         of the instance `<stem>-legacy` (the other layout's instance of
                         one fault) with its own ID, and at once gives it back
reopen-after-restart     a completed workflow created before this process started is
                         written back as `Running` on its first pass, and its phase
                         restored on the next (`runtime/downtime.py`)
always-initless          every pod is built in the init-less layout, whatever
                         `initlessPod` says (WPC-LAYOUT-001)
never-initless           every pod is built in the legacy layout, whatever `initlessPod`
                         says (WPC-LAYOUT-002)
delete-old-layout-pods   a completed pod of a workflow still running, built in a layout
                         that is no longer in force, is deleted instead of being
                         labelled completed (WPC-LAYOUT-004)
workflow-keeps-layout    a workflow's pods all get the layout in force when this process
                         first reconciled it; a later `initlessPod` change applies to new
                         workflows only (WPC-LAYOUT-005)
pod-gc-delay-ignored     a pod that pod GC deletes is deleted as soon as its node
                         completed, whatever `podGC.deleteDelayDuration` says
                         (WPC-FINALIZER-010)
early-workflow-pod-gc    under `podGC.strategy: OnWorkflowCompletion` each pod is deleted
                         as soon as its node completed (at once), not once the workflow
                         completed (WPC-FINALIZER-011)
keep-orphan-finalizer    a pod created before this process started whose Workflow is gone
                         keeps the status finalizer (and is not pod-GC'd) for good: a
                         Workflow deleted while the controller was down strands its pods
                         (WPC-FINALIZER-007)
label-before-record      the pods whose nodes an update completes are labelled completed
                         (and lose the status finalizer) `LABEL_LEAD_SECONDS` before the
                         Workflow records those nodes (WPC-FINALIZER-004)
sidecar-main-dropped     a sidecar named `main` passes validation and is left out of the
                         pod, so the workflow runs without it (breaks WPC-VALIDATE-005)
outputs-after-success    a node is written `Succeeded` as soon as its pod succeeded; its
                         task result's outputs are merged one pass later (a node not yet
                         completed counts its task result as unsynced), so one Workflow
                         version shows it Succeeded without them (WPC-STATUS-010)
image-cmd-ignored        a container without `command` or `args` gets its image's ENTRYPOINT
                         but not its CMD as `args` (WPC-EMISSARY-009)
exit-hook-twice          a DAG runs its completed target tasks' exit hooks a second time
                         in the same pass, and a limit that holds that call back errors
                         the DAG with `Max parallelism reached` (upstream #14392;
                         WPC-STATUS-020)
retry-on-failed-host     a retry under `retryStrategy.affinity.nodeAntiAffinity` gets the
                         hosts its earlier attempts failed on as `<label> In [hosts]`,
                         not `NotIn`: it is pinned to them (WPC-STATUS-022; with the
                         worker experiments, their chaos negative control)
fail-fast-at-once        a `failFast` steps or DAG template with a failed child fails at
                         once, its other children still running, and they are left
                         `Running` in the completed workflow (upstream #13806;
                         WPC-STATUS-023)
throttle-running         under the ConfigMap's `parallelism`, what runs is only the set
                         of admitted workflows, seeded once at start-up from the label
                         `workflows.argoproj.io/phase=Running` and grown only by
                         admissions under a limit: a `Running` workflow outside it
                         (started with no limit in force, or unlabelled) is held back
                         like a new one, not reconciled, while the limit is reached
                         (upstream #14123; `runtime/throttling.py`)
=======================  ==================================================================

Chaos negative controls (`tests/chaos/test_negative_controls.py`): each passes the
conformance suite's HelloWorld but misbehaves under one fault (issues 9, 16 and 28):

==========================  ===============================================================
name                        what breaks
==========================  ===============================================================
forget-in-flight-pods       pods created before this process started are never seen again
                            (a restart forgets them: their nodes become `pod deleted`)
double-pod-on-restart       a node still running when this process started gets a second
                            pod (the old one is not adopted)
early-finalizer-removal     the status finalizer is removed as soon as the pod runs, before
                            its final status was read
no-retry-pod-deleted        a node errored with `pod deleted` is never retried
oom-reported-as-error       a node whose main was OOM-killed becomes `Error`, not `Failed`
restart-suspend-timer       a Suspend node with a duration, already running when this
                            process started, is timed from this process's start instead
                            of its `startedAt` (it resumes a whole duration after the
                            restart, not at once)
rerun-hook-on-restart       a step's or task's exit-hook Pod node (`<step>.onExit`) not
                            yet done when this process started is run again: its pod is
                            ignored and a second pod created (other nodes are adopted)
start-error-as-error        a node whose main could not start (`StartError`) becomes
                            `Error`, not `Failed` (issue 28)
aux-failure-ignored         a pod whose main exited 0 but whose `wait` or `supervisor`
                            failed makes its node `Succeeded`, not `Error` (issue 28)
pending-deleted-errors      a Pending node whose pod disappeared becomes `Error: pod
                            deleted` instead of getting a new pod (issue 28)
no-rewatch-after-outage     an informer whose watch failed, or was ended early by the
                            server (an API server that stops), never lists or watches
                            again: after an API-server outage the caches stay frozen,
                            so a pod that finishes later is never seen (issue 28)
follow-main-by-exec         each running `main` is followed through one long exec
                            session (API server, kubelet, container runtime); a
                            session that breaks without an exit status takes main for
                            lost and its node errors as `pod deleted`, so a kubelet or
                            containerd restart fails a step that was fine (issue 28;
                            `runtime/following.py`)
==========================  ===============================================================

Executor-side faults (`common.EXECUTOR_FAULTS`, owned by the executor) are accepted here and
only passed through, in the same variable, to every container that runs the executor.

Faults of commission (issue 11) are data, not members of `Fault`: one row each of
`reference_impl/commission_table.py`, applied by the generic hooks of
`reference_impl/commission` (path operations on the built pod and on clean-up patches,
message rewrites of the status, ignored stop signals) and selected by the same
variable; the row becomes `ControllerSettings.commission`. Each row there carries its
name, the one clause it breaks and a summary; the table is the only list of them (a copy
here would drift).
"""

from __future__ import annotations

import copy
import enum
from typing import Any

from reference_impl import commission
from reference_impl import common
from reference_impl.controller import errors


class Fault(enum.Enum):
    """A controller-side fault; see the module docstring for what each one breaks."""

    KEEP_OLD_LAYOUT = "keep-old-layout"
    LEAVE_FINALIZER = "leave-finalizer"
    MAIN_MESSAGE_FIRST = "main-message-first"
    NO_WAIT_FOR_READY_ENV = "no-wait-for-ready-env"
    WRONG_CONTAINER_ORDER = "wrong-container-order"
    NO_OWNER_REFERENCE = "no-owner-reference"
    FORGET_IN_FLIGHT_PODS = "forget-in-flight-pods"
    DOUBLE_POD_ON_RESTART = "double-pod-on-restart"
    EARLY_FINALIZER_REMOVAL = "early-finalizer-removal"
    NO_RETRY_POD_DELETED = "no-retry-pod-deleted"
    OOM_REPORTED_AS_ERROR = "oom-reported-as-error"
    RESTART_SUSPEND_TIMER = "restart-suspend-timer"
    RERUN_HOOK_ON_RESTART = "rerun-hook-on-restart"
    AUX_FAILURE_IGNORED = "aux-failure-ignored"
    PENDING_DELETED_ERRORS = "pending-deleted-errors"
    START_ERROR_AS_ERROR = "start-error-as-error"
    NO_REWATCH_AFTER_OUTAGE = "no-rewatch-after-outage"
    FOLLOW_MAIN_BY_EXEC = "follow-main-by-exec"
    SIDECAR_STOP_FAILS_NODE = "sidecar-stop-fails-node"
    TERMINATE_WITH_SIGKILL = "terminate-with-sigkill"
    KILL_DEFAULT_NOT_PID1 = "kill-default-not-pid1"
    KILL_CMD_IGNORED = "kill-cmd-ignored"
    STOPPED_SIDECAR_MESSAGE = "stopped-sidecar-message"
    DOWNTIME_SUCCESS_NOTED = "downtime-success-noted"
    DOWNTIME_DELETED_FAILED = "downtime-deleted-failed"
    DELETED_WHILE_DOWN_LOST = "deleted-while-down-lost"
    RESTART_SKIPS_CLEANUP = "restart-skips-cleanup"
    CLAIM_SIBLING_PODS = "claim-sibling-pods"
    REOPEN_AFTER_RESTART = "reopen-after-restart"
    ALWAYS_INITLESS = "always-initless"
    NEVER_INITLESS = "never-initless"
    DELETE_OLD_LAYOUT_PODS = "delete-old-layout-pods"
    WORKFLOW_KEEPS_LAYOUT = "workflow-keeps-layout"
    POD_GC_DELAY_IGNORED = "pod-gc-delay-ignored"
    EARLY_WORKFLOW_POD_GC = "early-workflow-pod-gc"
    KEEP_ORPHAN_FINALIZER = "keep-orphan-finalizer"
    LABEL_BEFORE_RECORD = "label-before-record"
    SIDECAR_MAIN_DROPPED = "sidecar-main-dropped"
    OUTPUTS_AFTER_SUCCESS = "outputs-after-success"
    IMAGE_CMD_IGNORED = "image-cmd-ignored"
    EXIT_HOOK_TWICE = "exit-hook-twice"
    RETRY_ON_FAILED_HOST = "retry-on-failed-host"
    FAIL_FAST_AT_ONCE = "fail-fast-at-once"
    THROTTLE_RUNNING = "throttle-running"


LABEL_LEAD_SECONDS = 5.0
"""How long `label-before-record` labels a pod before its node is recorded: longer than
a watch event and a read of the Workflow take on a loaded cluster, so a suite that reads
the Workflow when the label flips sees the node not yet completed."""


def known_names() -> list[str]:
    """Return every accepted fault name, controller-side first, sorted within each side."""
    return (
        sorted(f.value for f in Fault)
        + sorted(common.EXECUTOR_FAULTS)
        + sorted(commission.load())
    )


def executor_side(value: str) -> bool:
    """Whether `value` names a fault the executor commits (passed through to pods)."""
    name = value.strip()
    return name in common.EXECUTOR_FAULTS or (
        commission.lookup(name, side=commission.EXECUTOR) is not None
    )


def parse(value: str) -> Fault | None:
    """Return the controller-side enum fault for `value`, else None.

    None also for an executor fault or a fault of commission (`commission.lookup`).

    Raises SettingsError naming the value when it is neither empty nor a known name.
    """
    name = value.strip()
    if not name or name in common.EXECUTOR_FAULTS or name in commission.load():
        return None
    try:
        return Fault(name)
    except ValueError:
        raise errors.SettingsError(
            f"{common.ENV_REFERENCE_FAULT}={value!r} is not a known fault; "
            f"known faults: {', '.join(known_names())}"
        ) from None


def predates(pod: dict[str, Any], moment: str) -> bool:
    """Whether the pod was created before `moment` (RFC 3339, second precision)."""
    created = str((pod.get("metadata") or {}).get("creationTimestamp") or "")
    return bool(created) and created < moment


SIBLING_SUFFIXES = ("-initless", "-legacy")
"""(claimant, claimed): the layout suffixes of the instances `claim-sibling-pods` pairs."""


def sibling_instance(instance_id: str) -> str:
    """The instance whose pods `claim-sibling-pods` takes, else "".

    The negative controls install one instance per layout for a fault, with IDs
    that differ only in the layout suffix; the fault must reach no other instance
    (another fault's, run side by side), so only that twin counts. One way only:
    `<stem>-initless` claims the pods of `<stem>-legacy`, never back (two claimants
    would relabel one pod in turn for ever).
    """
    claimant, claimed = SIBLING_SUFFIXES
    stem = instance_id.removesuffix(claimant)
    return stem + claimed if stem and stem != instance_id else ""


def built_initless(pod: dict[str, Any]) -> bool:
    """Whether the pod was built in the init-less layout (it has a `supervisor`)."""
    containers = (pod.get("spec") or {}).get("containers") or []
    return any(c.get("name") == common.SUPERVISOR for c in containers)


def pod_gc_per_pod(workflow: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of the workflow with `OnWorkflowCompletion` pod GC read as `OnPodCompletion`.

    None when the workflow's pod GC is another strategy (`early-workflow-pod-gc`).
    """
    pod_gc = (workflow.get("spec") or {}).get("podGC") or {}
    if pod_gc.get("strategy") != "OnWorkflowCompletion":
        return None
    changed = copy.deepcopy(workflow)
    changed["spec"]["podGC"]["strategy"] = "OnPodCompletion"
    return changed
