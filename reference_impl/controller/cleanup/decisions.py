"""Pod clean-up decisions: labelling pods completed, pod GC, and the status finalizer.

Pure decisions, mirroring `workflow/controller/pod/cleanup.go`
(`determinePodCleanupAction`), `pod/queue.go` (`getPodCleanupPatch`) and `pod/controller.go`
(`commonPodEvent`); `pod_cleanup_queue` carries them out. The finalizer
`workflows.argoproj.io/status` keeps a deleted pod visible until the controller has read
its final state; every path below that ends a pod's life removes it (contract notes 4).
"""

from __future__ import annotations

import datetime
import enum
from typing import Any

from reference_impl import common
from reference_impl.controller.formats import durations
from reference_impl.controller.formats import timestamps

Json = dict[str, Any]

DELETING_POD_MINIMUM_DELAY = 120.0
"""After a pod is deleted, wait this long (from its last transition) before stripping the finalizer."""


class Action(enum.Enum):
    """One clean-up action on one pod; the values are the work-queue key suffixes."""

    LABEL_COMPLETED = "labelPodCompleted"
    DELETE = "deletePod"
    REMOVE_FINALIZER = "removeFinalizer"
    TERMINATE = "terminateContainers"
    KILL = "killContainers"


def has_status_finalizer(pod: Json) -> bool:
    """Return whether the pod carries `workflows.argoproj.io/status`."""
    return common.FINALIZER_STATUS in (
        (pod.get("metadata") or {}).get("finalizers") or []
    )


def completion_action(
    *, pod: Json, strategy: str, selector_matches: bool, workflow_phase: str
) -> Action | None:
    """Return what to do with the pod of a fulfilled node after a successful workflow update."""
    completed = workflow_phase in ("Succeeded", "Failed", "Error")
    pod_phase = (pod.get("status") or {}).get("phase")
    if not selector_matches or strategy == "":
        return Action.LABEL_COMPLETED
    if strategy == "OnWorkflowCompletion" and completed:
        return Action.DELETE
    if strategy == "OnWorkflowSuccess" and workflow_phase == "Succeeded":
        return Action.DELETE
    if strategy == "OnPodCompletion":
        return Action.DELETE
    if strategy == "OnPodSuccess" and pod_phase == "Succeeded":
        return Action.DELETE
    if strategy == "OnPodSuccess" and pod_phase == "Failed":
        return Action.LABEL_COMPLETED
    if completed:
        return Action.LABEL_COMPLETED
    if has_status_finalizer(pod):
        return Action.REMOVE_FINALIZER
    return None


def cleanup_patch(pod: Json, *, label_completed: bool) -> Json | None:
    """Return the JSON merge patch for labelling and finalizer removal, or None for a no-op.

    The status finalizer is removed whenever the pod carries it, whether or not
    the controller still adds it: pods created while the setting was on must
    not be stranded once it is turned off (WPC-FINALIZER-009).

    The finalizer list is only sent with the pod's resourceVersion, so a concurrent change
    makes the patch fail with a conflict instead of dropping someone else's finalizer.
    """
    metadata: Json = {}
    if label_completed:
        metadata["labels"] = {common.LABEL_COMPLETED: "true"}
    finalizers = (pod.get("metadata") or {}).get("finalizers")
    if finalizers is not None:
        remaining = [f for f in finalizers if f != common.FINALIZER_STATUS]
        if len(remaining) != len(finalizers):
            metadata["finalizers"] = remaining
            metadata["resourceVersion"] = pod["metadata"].get("resourceVersion", "")
    return {"metadata": metadata} if metadata else None


def pod_event_action(*, pod: Json, deleting: bool, orphaned: bool) -> Action | None:
    """Return the clean-up a pod event asks for on its own (`commonPodEvent`)."""
    strategy = pod_gc_strategy(pod)[0]
    if deleting:
        return Action.REMOVE_FINALIZER if has_status_finalizer(pod) else None
    if not orphaned:
        return None
    phase = (pod.get("status") or {}).get("phase")
    if strategy == "OnPodSuccess" and phase == "Succeeded":
        return Action.DELETE
    return Action.REMOVE_FINALIZER if has_status_finalizer(pod) else None


def pod_event_delay(
    *, pod: Json, action: Action, deleting: bool, now: datetime.datetime
) -> float:
    """Return seconds to wait before a pod event's action, counted from the pod's last transition."""
    _, delay = pod_gc_strategy(pod)
    minimum = (
        DELETING_POD_MINIMUM_DELAY
        if deleting and action is Action.REMOVE_FINALIZER
        else 0.0
    )
    delay = max(delay if delay is not None else -1.0, minimum)
    last = last_transition(pod)
    if last is None or delay <= 0:
        return 0.0
    return max(0.0, (last - now).total_seconds() + delay)


def pod_gc_strategy(pod: Json) -> tuple[str, float | None]:
    """Return (strategy, delete delay) from the pod's `pod-gc-strategy` annotation."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(
        common.ANNOTATION_POD_GC_STRATEGY
    )
    if value is None:
        return "", None
    strategy, _, delay = value.partition("/")
    try:
        return strategy, durations.parse(delay) if delay else None
    except ValueError:
        return strategy, None


def last_transition(pod: Json) -> datetime.datetime | None:
    """Return the latest condition transition time of the pod, if any."""
    times = [
        c["lastTransitionTime"]
        for c in (pod.get("status") or {}).get("conditions") or []
        if c.get("lastTransitionTime")
    ]
    parsed = [
        t for t in (timestamps.parse_time(str(v)) for v in times) if t is not None
    ]
    return max(parsed) if parsed else None


def selector_matches(selector: Json | None, labels: dict[str, str]) -> bool:
    """Return whether pod labels match a LabelSelector (an empty or absent selector matches all)."""
    if not selector:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True
