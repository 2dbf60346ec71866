"""Whether an experiment applies here: what it declares it needs, against what is offered.

An experiment lists what it needs in its `wpc` extension (`requires`); the
cluster provider declares what it offers (`clusters.faults.offers`) and the
implementation profile what its commands can do. A need that nothing offers
makes the experiment not applicable, which is known from these declarations
alone, before anything is installed, instead of from a fault that could not
be injected minutes into the run. (An activity that still finds its fault
cannot be injected raises `Unsupported`: the backstop, see `chaos.lifecycle.control`.)
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from typing import TypeVar

from chaos.errors import Unsupported
from clusters import faults
from conformance.implementations.profiles import Profile

NODE_FAULTS = faults.NODE_FAULTS
WORKER_FAULTS = faults.WORKER_FAULTS
SEVERAL_NODES = faults.SEVERAL_NODES
CONTROLLER_RESTART = "controller-restart"
STATUS_FINALIZER = "status-finalizer"
EXECUTOR_CONFIG = "executor-config"

PROVIDER_NEEDS = {
    NODE_FAULTS: "restart the node's kubelet, containerd or API server, signal a "
    "container's processes, cut a pod's network",
    WORKER_FAULTS: "freeze or remove a whole worker node",
    SEVERAL_NODES: "a second schedulable node to run a retry on",
}
"""What each need the provider meets lets an experiment do."""


def _has(profile: Profile, *commands: str) -> bool:
    return all(profile.commands.get(c) for c in commands)


PROFILE_NEEDS: dict[str, tuple[str, Callable[[Profile], bool]]] = {
    CONTROLLER_RESTART: (
        "stop, start and restart the controller (its stop, start and restart commands)",
        lambda p: _has(p, "stop", "start", "restart"),
    ),
    STATUS_FINALIZER: (
        "switch the status finalizer (STATUS_FINALIZER and setStatusFinalizer)",
        lambda p: "STATUS_FINALIZER" in p.features and _has(p, "setStatusFinalizer"),
    ),
    EXECUTOR_CONFIG: (
        "swap the executor image through the `executor` configuration field "
        "(setConfig, and `capabilities: [executor-config]`)",
        lambda p: EXECUTOR_CONFIG in p.capabilities and _has(p, "setConfig"),
    ),
}
"""Each need a profile meets: what it lets an experiment do, and whether it does."""

C = TypeVar("C")


def capability(found: C | None, *, provider: str, cannot: str) -> C:
    """A provider's fault capability (`clusters.faults.of`, `workers_of`), there or not.

    The backstop for an activity whose experiment did not declare the need:
    no capability is `Unsupported`, saying what the provider cannot do.
    """
    if found is None:
        raise Unsupported(f"the {provider} provider cannot {cannot}")
    return found


KNOWN = frozenset(PROVIDER_NEEDS) | frozenset(PROFILE_NEEDS)
"""Every name an experiment may list under `requires`."""


def unmet(needs: Iterable[str], *, provider: str, profile: Profile) -> list[str]:
    """Why each need is not met here, one sentence each; empty when all are.

    ValueError for a need no one could offer (a typo in a document).
    """
    needs = tuple(needs)
    unknown = sorted(set(needs) - KNOWN)
    if unknown:
        raise ValueError(f"unknown requirements {unknown} (known: {sorted(KNOWN)})")
    offered = faults.offers(provider)
    reasons = []
    for need in needs:
        if need in PROVIDER_NEEDS and need not in offered:
            reasons.append(
                f"needs {need} ({PROVIDER_NEEDS[need]}), which the {provider} "
                "provider does not offer"
            )
        elif need in PROFILE_NEEDS and not PROFILE_NEEDS[need][1](profile):
            reasons.append(
                f"needs {need} ({PROFILE_NEEDS[need][0]}), which the profile "
                f"{profile.name} ({profile.path}) does not offer"
            )
    return reasons
