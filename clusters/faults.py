"""Which providers can inject node-level faults (chaos experiments 9-12).

Restarting the kubelet or containerd, stopping the API server, or signalling
a container's processes needs the node's process table. The local provider
runs every component as a host process, so it can; kind and k3d would need
`docker exec` into their node containers, and an existing cluster offers no
way at all: for them `of()` returns None and the experiment does not apply.

Whole-worker faults (a node frozen, removed) are a second capability,
`workers_of()`: kind's nodes are containers on our Docker engine; the local
provider has one node, which is also its control plane, so it has none.

`offers()` declares both, and whether a provider's clusters can have a second
node at all, so a chaos experiment that needs one is known not to apply before
anything is installed (its `requires`, chaos/experiments/README.md).
"""

from __future__ import annotations

from clusters.base import NodeFaults
from clusters.base import WorkerFaults

NODE_FAULTS = "node-faults"
"""The node's own components and containers can be faulted (`of()`)."""
WORKER_FAULTS = "worker-faults"
"""A whole worker node can be frozen or removed (`workers_of()`)."""
SEVERAL_NODES = "several-nodes"
"""The cluster can have a schedulable node besides the one a pod runs on."""

OFFERS: dict[str, frozenset[str]] = {
    "local": frozenset({NODE_FAULTS}),
    "kind": frozenset({WORKER_FAULTS, SEVERAL_NODES}),
    "k3d": frozenset(),
    "existing": frozenset({SEVERAL_NODES}),
}
"""What each provider offers. local and k3d make one node (`--workers` is kind's
alone); an existing cluster may have several, which only a run can find out."""


def offers(provider: str) -> frozenset[str]:
    """What `provider` offers chaos experiments (nothing for an unknown name)."""
    return OFFERS.get(provider, frozenset())


def of(provider: str) -> NodeFaults | None:
    """The node faults of `provider`, or None when it has none."""
    if provider == "local":
        from clusters.local import faults

        return faults.LocalNodeFaults()
    return None


def workers_of(provider: str) -> WorkerFaults | None:
    """The worker-node faults of `provider`, or None when it has none."""
    if provider == "kind":
        from clusters.kind import workerfaults

        return workerfaults.KindWorkerFaults()
    return None
