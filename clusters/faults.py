"""Which providers can inject node-level faults (chaos experiments 9-12).

Restarting the kubelet or containerd, stopping the API server, or signalling
a container's processes needs the node's process table. The local provider
runs every component as a host process, so it can; kind and k3d would need
`docker exec` into their node containers, and an existing cluster offers no
way at all: for them `of()` returns None and the experiment is `skipped`.

Whole-worker faults (a node frozen, removed) are a second capability,
`workers_of()`: kind's nodes are containers on our Docker engine; the local
provider has one node, which is also its control plane, so it has none.
"""

from __future__ import annotations

from clusters.base import NodeFaults
from clusters.base import WorkerFaults


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
