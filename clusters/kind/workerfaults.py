"""Worker-node faults of the kind provider: its node containers, on our Docker engine.

A kind node is a container labelled `io.x-k8s.kind.cluster=<cluster>` whose name is
the Node's name; `io.x-k8s.kind.role` tells workers from the control plane. Every
verb acts through the engine the kind settings select (the project's own dockerd,
or with WPC_KIND_DOCKER=host the host's; see `settings`) and answers with the
container's state read back from the engine, so the caller's evidence is the engine's word, not ours.

A frozen (`docker pause`) node keeps its address; a stopped one may get another
one from Docker when it starts again, which its kubelet's certificates and the
other nodes' routes do not expect. The experiments therefore freeze to take a node
away and bring it back; `stop`/`start` exist for callers that want a node's
processes gone.
"""

from __future__ import annotations

from clusters.docker import cli as docker_cli
from clusters.docker.settings import DockerSettings
from clusters.errors import ClusterError
from clusters.kind.dormant import CLUSTER_LABEL

ROLE_LABEL = "io.x-k8s.kind.role"


class KindWorkerFaults:
    """Implements clusters.base.WorkerFaults with docker verbs on the node containers."""

    def __init__(self, settings: DockerSettings | None = None) -> None:
        if settings is None:
            from clusters.kind.settings import KindSettings
            from clusters.machine import holding

            recorded = holding.recorded_details("kind")
            settings = KindSettings.from_env(recorded=recorded).docker
        self.settings = settings

    def workers(self, cluster: str) -> list[str]:
        """The cluster's worker containers (running or not), sorted."""
        out = docker_cli.capture(
            self.settings,
            "ps",
            "--all",
            "--filter",
            f"label={CLUSTER_LABEL}={cluster}",
            "--filter",
            f"label={ROLE_LABEL}=worker",
            "--format",
            "{{.Names}}",
        )
        return sorted(out.split())

    def state(self, node: str) -> str:
        """The container's state (`running`, `paused`, `exited`, ...), or `absent`."""
        if not docker_cli.succeeds(self.settings, "container", "inspect", node):
            return "absent"
        return docker_cli.capture(
            self.settings, "inspect", "--format", "{{.State.Status}}", node
        ).strip()

    def _worker(self, cluster: str, node: str) -> None:
        found = self.workers(cluster)
        if node not in found:
            raise ClusterError(
                f"{node} is not a worker node of kind cluster {cluster} "
                f"(workers: {found or 'none'})"
            )

    def _act(self, cluster: str, node: str, verb: list[str], want: str) -> str:
        self._worker(cluster, node)
        docker_cli.capture(self.settings, *verb, node)
        seen = self.state(node)
        if seen != want:
            raise ClusterError(
                f"docker {' '.join(verb)} {node}: container is {seen}, not {want}"
            )
        return f"node container {node} is {seen} (docker {' '.join(verb)})"

    def freeze(self, cluster: str, node: str) -> str:
        """`docker pause`: the cgroup freezer stops every process of the node."""
        return self._act(cluster, node, ["pause"], "paused")

    def thaw(self, cluster: str, node: str) -> str:
        """`docker unpause`, unless the node is not paused (idempotent)."""
        if self.state(node) != "paused":
            return f"node container {node} is {self.state(node)}"
        return self._act(cluster, node, ["unpause"], "running")

    def stop(self, cluster: str, node: str) -> str:
        """`docker stop` (SIGTERM to the node's init, SIGKILL after 10 s)."""
        return self._act(cluster, node, ["stop", "--time", "10"], "exited")

    def start(self, cluster: str, node: str) -> str:
        """`docker start`, unless the node already runs (idempotent)."""
        if self.state(node) == "running":
            return f"node container {node} is running"
        return self._act(cluster, node, ["start"], "running")

    def remove(self, cluster: str, node: str) -> str:
        """`docker rm --force --volumes`: the node's container and its volumes are gone."""
        self._worker(cluster, node)
        docker_cli.capture(self.settings, "rm", "--force", "--volumes", node)
        seen = self.state(node)
        if seen != "absent":
            raise ClusterError(f"docker rm {node}: container is still {seen}")
        return f"node container {node} removed (docker rm --force --volumes)"
