"""How fast a controller stops on SIGTERM, judged (WPC-RECOVERY-011): pure, no cluster.

Kubernetes stops a pod by sending SIGTERM and, if the process is still there at
the end of `terminationGracePeriodSeconds`, SIGKILL. A controller that ignores
SIGTERM (upstream v4.1.0, argoproj/argo-workflows#15863) is therefore still
stopped, only late: every rollout, drain and leader handover then waits out
the grace period. The scenario measures graceful deletion until the pod object
is gone; these functions say whether that is within the bound, and whether
the pod's grace period leaves room to tell "stopped on its own" from "killed
at the end of the grace period" at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

KILLED_EXIT_CODE = 137
"""128 + SIGKILL: what the kubelet's kill at the end of the grace period leaves."""


def grace_to_set(grace_seconds: float | None, limit: float) -> int | None:
    """A grace period to give the pod first, or None when its own is long enough.

    A grace period at or below the limit would end every measurement inside
    the limit, the kill included, so the test could not fail: then twice the
    limit is set (Kubernetes' default, 30 s, needs no change).
    """
    if grace_seconds is not None and grace_seconds > limit:
        return None
    return math.ceil(2 * limit)


def last_exit_code(pod_versions: Sequence[dict[str, Any]]) -> int | None:
    """The exit code of the pod's first terminated container in its last version that has one."""
    for pod in reversed(pod_versions):
        for status in (pod.get("status") or {}).get("containerStatuses") or []:
            terminated = (status.get("state") or {}).get("terminated")
            if terminated and terminated.get("exitCode") is not None:
                return int(terminated["exitCode"])
    return None


def judge(
    *,
    elapsed: float,
    bound: float,
    tolerance: float,
    grace_seconds: float,
    exit_code: int | None,
) -> str | None:
    """None when the pod was gone within bound + tolerance; else why not, with evidence."""
    limit = bound + tolerance
    if elapsed <= limit:
        return None
    code = "not observed" if exit_code is None else str(exit_code)
    killed = exit_code == KILLED_EXIT_CODE or elapsed >= grace_seconds
    cause = (
        "it ignored SIGTERM and was killed at the end of its grace period"
        if killed
        else "it was still stopping"
    )
    return (
        f"the controller pod was gone {elapsed:.1f} s after a graceful deletion, "
        f"more than {bound:g} s (+{tolerance:g} s tolerance) after SIGTERM: {cause} "
        f"(grace period {grace_seconds:g} s, last exit code {code})"
    )
