"""Settings of one local cluster: where its state lives and how its network is laid out."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from clusters.errors import RunError
from plumbing import commands
from plumbing.gobuilding import BuildSettings


def _eth0_address(interface: str) -> str:
    out = commands.capture(
        ["ip", "-4", "-o", "addr", "show", "dev", interface], error=RunError
    )
    for word_list in (line.split() for line in out.splitlines()):
        if "inet" in word_list:
            return word_list[word_list.index("inet") + 1].split("/")[0]
    raise OSError(f"interface {interface} has no IPv4 address")


@dataclass(frozen=True)
class LocalSettings:
    """Everything that shapes one local cluster. Defaults fit the project's machines."""

    name: str
    """Cluster name; the node is `<name>-control-plane`, like kind's."""
    state_root: Path
    """All state of all local clusters lives under here (default /var/lib/wpc)."""
    build: BuildSettings
    node_ip: str
    """The node's address (eth0): the apiserver advertises it and pods reach it."""
    interface: str = "eth0"
    service_cidr: str = "10.96.0.0/12"
    """Must not overlap docker0 (172.17.0.0/16) or the host network."""
    api_service_ip: str = "10.96.0.1"
    dns_service_ip: str = "10.96.0.10"
    pod_cidr: str = "10.244.0.0/16"
    node_pod_subnet: str = "10.244.0.0/24"
    api_port: int = 6443
    etcd_client_port: int = 2379
    etcd_peer_port: int = 2380
    etcd_metrics_port: int = 2381
    kubelet_port: int = 10250
    containerd_stream_port: int = 10010
    """containerd's CRI streaming server (exec, attach, port-forward): fixed, not
    ephemeral, so every listening port of the cluster is known in advance."""
    bridge: str = "cni0"

    @classmethod
    def from_env(cls, name: str) -> LocalSettings:
        """Read WPC_STATE_DIR and WPC_NODE_INTERFACE (see docs/environment-variables.md)."""
        interface = os.environ.get("WPC_NODE_INTERFACE", "eth0")
        return cls(
            name=name,
            state_root=Path(os.environ.get("WPC_STATE_DIR", "/var/lib/wpc")),
            build=BuildSettings.from_env(),
            node_ip=_eth0_address(interface),
            interface=interface,
        )

    @property
    def state_dir(self) -> Path:
        """The one directory this cluster owns; `down` removes it."""
        return self.state_root / self.name

    @property
    def node_name(self) -> str:
        """Lower-case node name, as the kubelet requires."""
        return f"{self.name}-control-plane".lower()

    @property
    def pki_dir(self) -> Path:
        """Certificates, keys and kubeconfigs."""
        return self.state_dir / "pki"

    @property
    def log_dir(self) -> Path:
        """One log file per component."""
        return self.state_dir / "logs"

    @property
    def run_dir(self) -> Path:
        """Pid files and sockets."""
        return self.state_dir / "run"

    @property
    def registry_hosts_dir(self) -> Path:
        """containerd's `config_path`: `<host>/hosts.toml` per registry host (mirrors)."""
        return self.state_dir / "containerd" / "certs.d"

    @property
    def containerd_socket(self) -> Path:
        """containerd's own socket, apart from any Debian containerd 1.6 for Docker."""
        return self.run_dir / "containerd" / "containerd.sock"

    @property
    def kubeconfig(self) -> Path:
        """The admin kubeconfig users and tests get."""
        return self.pki_dir / "admin.kubeconfig"

    @property
    def server(self) -> str:
        """The apiserver URL in kubeconfigs (the node IP, valid inside pods too)."""
        return f"https://{self.node_ip}:{self.api_port}"

    def sans(self) -> tuple[str, ...]:
        """Subject alternative names of the apiserver's serving certificate."""
        return (
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
            "localhost",
            socket.gethostname(),
            "127.0.0.1",
            self.api_service_ip,
            self.node_ip,
        )
