"""The proof that a new kind cluster works: every node Ready, CoreDNS answering.

`kind create cluster` returns once kubeadm is done; with our own pod network
the nodes become Ready a little later, when each node's network service
wrote its CNI config. DNS is asked from inside the control-plane node through
the kube-dns Service (`probes`), so the answer proves kube-proxy's rules and
the CoreDNS pods together.
"""

from __future__ import annotations

from pathlib import Path

from clusters import pins
from clusters.docker import cli as docker_cli
from clusters.docker.settings import DockerSettings
from clusters.errors import RunError
from clusters.errors import WaitTimeout
from clusters.kind import probes
from clusters.kind.settings import KindSettings
from plumbing import commands
from plumbing.gobuilding import component_dir
from plumbing.waiting import NotYet
from plumbing.waiting import until

DNS_NAME = "kubernetes.default.svc.cluster.local"
POLL = 1.0


def node_containers(s: DockerSettings, cluster: str) -> list[str]:
    """Names of the cluster's node containers, control plane first."""
    out = docker_cli.capture(
        s,
        "ps",
        "--all",
        "--filter",
        f"label=io.x-k8s.kind.cluster={cluster}",
        "--format",
        "{{.Names}}",
    )
    return sorted(out.split(), key=lambda n: (not n.endswith("-control-plane"), n))


def _kubectl(s: KindSettings, kubeconfig: Path, *args: str) -> str:
    kubectl = (
        component_dir(s.build.cache_dir, "kubernetes", pins.KUBERNETES)
        / "bin"
        / "kubectl"
    )
    return commands.capture(
        [str(kubectl), "--kubeconfig", str(kubeconfig), *args], error=RunError
    )


def nodes_ready(s: KindSettings, kubeconfig: Path, expected: int) -> str | NotYet:
    """All `expected` nodes report Ready=True."""
    out = _kubectl(
        s,
        kubeconfig,
        "get",
        "nodes",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
    )
    states = dict(pair.split("=", 1) for pair in out.split())
    ready = [n for n, v in states.items() if v == "True"]
    seen = f"Ready: {sorted(ready)}; all: {states}"
    return seen if len(ready) == expected else NotYet(seen)


def dns_answers(s: KindSettings, kubeconfig: Path, cluster: str) -> str | NotYet:
    """CoreDNS answers the A query for the API Service through the kube-dns Service."""
    ip = _kubectl(
        s,
        kubeconfig,
        "get",
        "service",
        "-n",
        "kube-system",
        "kube-dns",
        "-o",
        "jsonpath={.spec.clusterIP}",
    ).strip()
    node = node_containers(s.docker, cluster)[0]
    done = commands.attempt(
        ["docker", "exec", "-i", node, *probes.command(ip)],
        env=s.docker.env(),
        timeout=10,
        stdin=probes.stdin_text(probes.query(DNS_NAME)),
    )
    try:
        answer = probes.parse(done.stdout)
    except ValueError as exc:
        return NotYet(f"no DNS reply from {ip} ({exc}): {done.stderr[-300:]}")
    seen = f"{DNS_NAME} via {ip}: rcode {answer.rcode}, {answer.addresses}"
    return seen if answer.rcode == 0 and answer.addresses else NotYet(seen)


def wait(s: KindSettings, cluster: str, *, kubeconfig: Path) -> None:
    """Wait for every node Ready, then for DNS answers three times in a row."""
    wait_nodes(s, cluster, kubeconfig=kubeconfig)
    wait_dns(s, cluster, kubeconfig=kubeconfig)


def wait_nodes(s: KindSettings, cluster: str, *, kubeconfig: Path) -> None:
    """Wait for every node of the cluster to be Ready (its pod network is up)."""
    expected = len(node_containers(s.docker, cluster))
    until(
        lambda: nodes_ready(s, kubeconfig, expected),
        timeout=s.nodes_ready_timeout,
        interval=POLL,
        describe=f"the {expected} nodes of kind cluster {cluster} to be Ready",
        ignoring=(RunError,),  # the apiserver may still be settling
        error=WaitTimeout,
    )


def wait_dns(s: KindSettings, cluster: str, *, kubeconfig: Path) -> None:
    """Wait for CoreDNS to answer through the kube-dns Service three times in a row."""
    until(
        lambda: dns_answers(s, kubeconfig, cluster),
        timeout=s.dns_timeout,
        interval=POLL,
        consecutive=3,
        describe=f"CoreDNS of kind cluster {cluster} to answer through kube-dns",
        ignoring=(RunError,),
        error=WaitTimeout,
    )
