"""The deadline and grace periods the invariants judge with."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InvariantSettings:
    """Limits of the offline checks; each default says why it is what it is."""

    deadline_seconds: float = 300.0
    """From a workflow's first event to its first terminal phase. The chaos
    workflows are a few short steps; even with a controller restart and a
    pod re-created, five minutes is several times what a healthy run needs,
    so a miss means the controller stalled, not that the cluster was slow."""

    finalizer_grace_seconds: float = 30.0
    """How long a pod may keep the status finalizer after its workflow is
    terminal or deleted. The controller removes it on its next reconcile of
    the pod; 30 s covers a resync and a leader change, not a leak."""

    orphan_grace_seconds: float = 30.0
    """How long a workflow's pods may outlive its deletion: the garbage
    collector deletes owned pods within seconds; 30 s allows for a pod's
    termination grace period (default 30 s in Kubernetes) as well."""

    taskresult_grace_seconds: float = 30.0
    """How long a WorkflowTaskResult may outlive its workflow's completion or
    deletion: the controller deletes them when it marks the workflow
    completed; 30 s covers one reconcile delayed by a restart."""
