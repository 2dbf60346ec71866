"""Which providers can inject node-level faults (chaos experiments 9-12).

Restarting the kubelet or containerd, stopping the API server, or signalling
a container's processes needs the node's process table. The local provider
runs every component as a host process, so it can; kind and k3d would need
`docker exec` into their node containers, and an existing cluster offers no
way at all: for them `of()` returns None and the experiment is `skipped`.
"""

from __future__ import annotations

from clusters.base import NodeFaults


def of(provider: str) -> NodeFaults | None:
    """The node faults of `provider`, or None when it has none."""
    if provider == "local":
        from clusters.local import faults

        return faults.LocalNodeFaults()
    return None
