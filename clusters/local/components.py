"""The command lines and health probes of every local-cluster component."""

from __future__ import annotations

from pathlib import Path

from clusters.local.pki import ETCD_CA
from clusters.local.settings import LocalSettings
from clusters.machine.processes import Component
from clusters.machine.processes import Probe
from clusters.machine.processes import client_context
from clusters.machine.processes import http_probe
from clusters.machine.processes import insecure_context
from clusters.machine.processes import server_context
from plumbing import commands
from plumbing.waiting import NotYet

ADMISSION = ",".join(
    (
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "DefaultStorageClass",
        "DefaultTolerationSeconds",
        "Priority",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
        "NodeRestriction",
    )
)


def etcd(s: LocalSettings, bin_dir: Path) -> Component:
    """Single-member etcd on loopback; clients and peers need a cert from etcd's CA.

    etcd cannot run without a peer listener (an empty --listen-peer-urls falls
    back to its default), so the peer port gets mutual TLS as well. Metrics stay
    plain http on loopback: that listener serves only /metrics and health.
    """
    pki = s.pki_dir
    client = f"https://127.0.0.1:{s.etcd_client_port}"
    peer = f"https://127.0.0.1:{s.etcd_peer_port}"
    ca = str(pki / f"{ETCD_CA}.crt")
    return Component(
        name="etcd",
        command=(
            str(bin_dir / "etcd"),
            "--name",
            "default",
            "--data-dir",
            str(s.state_dir / "etcd"),
            "--listen-client-urls",
            client,
            "--advertise-client-urls",
            client,
            f"--cert-file={pki / 'etcd-server.crt'}",
            f"--key-file={pki / 'etcd-server.key'}",
            f"--trusted-ca-file={ca}",
            "--client-cert-auth=true",
            "--listen-peer-urls",
            peer,
            "--initial-advertise-peer-urls",
            peer,
            "--initial-cluster",
            f"default={peer}",
            f"--peer-cert-file={pki / 'etcd-peer.crt'}",
            f"--peer-key-file={pki / 'etcd-peer.key'}",
            f"--peer-trusted-ca-file={ca}",
            "--peer-client-cert-auth=true",
            "--listen-metrics-urls",
            f"http://127.0.0.1:{s.etcd_metrics_port}",
            "--unsafe-no-fsync",  # a throwaway test cluster: trade durability for speed
        ),
        probe=http_probe(
            f"{client}/health",
            tls=client_context(
                ca=pki / f"{ETCD_CA}.crt",
                cert=pki / "etcd-healthcheck-client.crt",
                key=pki / "etcd-healthcheck-client.key",
            ),
            expect='"health":"true"',
        ),
    )


def apiserver(s: LocalSettings, bin_dir: Path, authentication: Path) -> Component:
    """kube-apiserver on the node IP only, anonymous only for its health paths.

    The node IP is the one address every client uses: kubeconfigs name it, and
    the `kubernetes` Service's endpoint (the advertise address) sends pods to it;
    127.0.0.0/8 endpoints are invalid. `authentication` is the structured
    AuthenticationConfiguration; with it, --anonymous-auth must not be given.
    """
    pki = s.pki_dir
    return Component(
        name="kube-apiserver",
        command=(
            str(bin_dir / "kube-apiserver"),
            f"--advertise-address={s.node_ip}",
            f"--bind-address={s.node_ip}",
            f"--secure-port={s.api_port}",
            f"--authentication-config={authentication}",
            f"--etcd-servers=https://127.0.0.1:{s.etcd_client_port}",
            f"--etcd-cafile={pki / f'{ETCD_CA}.crt'}",
            f"--etcd-certfile={pki / 'apiserver-etcd-client.crt'}",
            f"--etcd-keyfile={pki / 'apiserver-etcd-client.key'}",
            "--storage-backend=etcd3",
            "--storage-media-type=application/vnd.kubernetes.protobuf",
            f"--service-cluster-ip-range={s.service_cidr}",
            "--authorization-mode=Node,RBAC",
            f"--enable-admission-plugins={ADMISSION}",
            f"--client-ca-file={pki / 'client-ca.crt'}",
            f"--tls-cert-file={pki / 'serving-kube-apiserver.crt'}",
            f"--tls-private-key-file={pki / 'serving-kube-apiserver.key'}",
            f"--kubelet-client-certificate={pki / 'client-kube-apiserver.crt'}",
            f"--kubelet-client-key={pki / 'client-kube-apiserver.key'}",
            f"--service-account-key-file={pki / 'sa.pub'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--service-account-issuer=https://kubernetes.default.svc",
            "--service-account-lookup=true",
            "--allow-privileged=true",
            # Reach the kubelet at its node IP: looking its name up would send a DNS
            # query to the host's resolver, off the machine.
            "--kubelet-preferred-address-types=InternalIP",
            # Webhooks and aggregated APIs are reached at endpoint (pod) IPs, not
            # ClusterIPs: the service range is blackholed on the host.
            "--enable-aggregator-routing=true",
            f"--cert-dir={s.state_dir / 'apiserver-certs'}",
        ),
        # Anonymous on purpose: ready means health is readable without credentials.
        probe=http_probe(
            f"https://{s.node_ip}:{s.api_port}/readyz",
            tls=server_context(ca=pki / "server-ca.crt"),
            expect="ok",
        ),
        timeout=90.0,
    )


def controller_manager(s: LocalSettings, bin_dir: Path) -> Component:
    """kube-controller-manager: GC, namespaces, service accounts, endpoints, ..."""
    pki = s.pki_dir
    kc = str(pki / "controller.kubeconfig")
    return Component(
        name="kube-controller-manager",
        command=(
            str(bin_dir / "kube-controller-manager"),
            f"--kubeconfig={kc}",
            f"--authentication-kubeconfig={kc}",
            f"--authorization-kubeconfig={kc}",
            f"--service-account-private-key-file={pki / 'sa.key'}",
            f"--root-ca-file={pki / 'server-ca.crt'}",
            f"--cluster-signing-cert-file={pki / 'client-ca.crt'}",
            f"--cluster-signing-key-file={pki / 'client-ca.key'}",
            "--use-service-account-credentials=true",
            "--controllers=*",
            "--leader-elect=false",
            f"--service-cluster-ip-range={s.service_cidr}",
            "--bind-address=127.0.0.1",
            "--secure-port=10257",
            f"--cert-dir={s.state_dir / 'kcm-certs'}",
        ),
        probe=http_probe(
            "https://127.0.0.1:10257/healthz", tls=insecure_context, expect="ok"
        ),
    )


def scheduler(s: LocalSettings, bin_dir: Path, config: Path) -> Component:
    """kube-scheduler with a one-replica configuration."""
    kc = str(s.pki_dir / "scheduler.kubeconfig")
    return Component(
        name="kube-scheduler",
        command=(
            str(bin_dir / "kube-scheduler"),
            f"--config={config}",
            f"--authentication-kubeconfig={kc}",
            f"--authorization-kubeconfig={kc}",
            "--bind-address=127.0.0.1",
            "--secure-port=10259",
            f"--cert-dir={s.state_dir / 'scheduler-certs'}",
        ),
        probe=http_probe(
            "https://127.0.0.1:10259/healthz", tls=insecure_context, expect="ok"
        ),
    )


def _ctr_probe(ctr: Path, socket: Path) -> Probe:
    def probe() -> str | NotYet:
        proc = commands.attempt(
            [str(ctr), "--address", str(socket), "version"], timeout=5
        )
        said = (proc.stdout + proc.stderr).strip()[-300:]
        return f"ctr version: {said}" if proc.returncode == 0 else NotYet(said)

    return probe


def containerd(s: LocalSettings, bin_dir: Path, config: Path) -> Component:
    """containerd on its own socket; healthy when `ctr version` answers."""
    return Component(
        name="containerd",
        command=(str(bin_dir / "containerd"), "--config", str(config)),
        probe=_ctr_probe(bin_dir / "ctr", s.containerd_socket),
        # Our runc and shim first on PATH, ahead of any Debian containerd 1.6.
        env={"PATH": f"{bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin"},
    )


def kubelet(s: LocalSettings, bin_dir: Path, config: Path) -> Component:
    """kubelet with its root dir inside the state dir."""
    return Component(
        name="kubelet",
        command=(
            str(bin_dir / "kubelet"),
            f"--config={config}",
            f"--kubeconfig={s.pki_dir / 'kubelet.kubeconfig'}",
            f"--hostname-override={s.node_name}",
            f"--node-ip={s.node_ip}",
            f"--root-dir={s.state_dir / 'kubelet'}",
        ),
        probe=http_probe("http://127.0.0.1:10248/healthz", expect="ok"),
    )


def kube_proxy(s: LocalSettings, bin_dir: Path, config: Path) -> Component:
    """kube-proxy in iptables mode."""
    return Component(
        name="kube-proxy",
        command=(str(bin_dir / "kube-proxy"), f"--config={config}"),
        probe=http_probe("http://127.0.0.1:10256/healthz"),
    )
