"""Configuration files of the local cluster's components, rendered from settings.

Each function returns the text of one file; `steps.py` writes them. Keeping
rendering pure makes every config unit-testable without a host.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from clusters import pins
from clusters.local.settings import LocalSettings


def containerd_config(
    s: LocalSettings, *, runc: Path, shim: Path, cni_bin: Path
) -> str:
    """containerd 2.x CRI config: own root/state/socket, cgroupfs, no negative oom_score_adj."""
    sd = s.state_dir
    return f"""version = 3
root = "{sd / "containerd" / "root"}"
state = "{s.run_dir / "containerd" / "state"}"

[grpc]
  address = "{s.containerd_socket}"

[ttrpc]
  address = "{s.containerd_socket}.ttrpc"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  # The suite's images are imported (clusters/images/archives.py); a pull goes to the
  # image's registry, or to a mirror with credentials that a `<host>/hosts.toml`
  # here names (mirror_hosts_toml; read at each pull, so no restart).
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = '{pins.SANDBOX_IMAGE}'
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = '{s.registry_hosts_dir}'

[plugins.'io.containerd.cri.v1.runtime']
  # The kernel refuses negative oom_score_adj (EIO); without this every
  # sandbox dies with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  enable_cdi = false
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      # An explicit shim path: Debian's docker.io ships a containerd 1.6 shim on PATH.
      runtime_path = '{shim}'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = '{runc}'
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['{cni_bin}']
    conf_dir = '{sd / "cni" / "net.d"}'
    max_conf_num = 1

[plugins.'io.containerd.grpc.v1.cri']
  # exec/attach/port-forward streams: plain http on loopback, each URL carrying a
  # one-time token that only a CRI call (root's socket) hands out.
  stream_server_address = '127.0.0.1'
  stream_server_port = '{s.containerd_stream_port}'
"""


def mirror_hosts_toml(server: str, mirror: str, authorization: str = "") -> str:
    """A containerd hosts.toml: pull `server`'s images from `mirror`, with a header.

    For `<registry_hosts_dir>/<host>/hosts.toml`. hosts.toml has no user or
    password field, so a registry's credentials go as the `Authorization` header
    sent to the mirror (`Basic base64(user:password)` for an htpasswd registry).
    """
    lines = [
        f"server = {json.dumps(server)}",
        "",
        f"[host.{json.dumps(mirror)}]",
        '  capabilities = ["pull", "resolve"]',
    ]
    if authorization:
        lines += [
            f"  [host.{json.dumps(mirror)}.header]",
            f"    Authorization = {json.dumps(authorization)}",
        ]
    return "\n".join(lines) + "\n"


def cni_conflist(s: LocalSettings) -> str:
    """bridge + host-local on one node subnet, portmap, and firewall (dockerd's FORWARD=DROP)."""
    conf = {
        "cniVersion": "1.0.0",
        "name": "wpc-pod-network",
        "plugins": [
            {
                "type": "bridge",
                "bridge": s.bridge,
                "isGateway": True,
                "ipMasq": False,
                "hairpinMode": True,
                "ipam": {
                    "type": "host-local",
                    "dataDir": str(s.state_dir / "cni" / "ipam"),
                    "ranges": [[{"subnet": s.node_pod_subnet}]],
                    "routes": [{"dst": "0.0.0.0/0"}],
                },
            },
            {
                "type": "portmap",
                "capabilities": {"portMappings": True},
                "externalSetMarkChain": "KUBE-MARK-MASQ",
            },
            {"type": "firewall", "backend": "iptables"},
        ],
    }
    return json.dumps(conf, indent=2)


def kubelet_config(s: LocalSettings) -> str:
    """KubeletConfiguration for a cgroup-v1, non-systemd host without a registry."""
    conf = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "failCgroupV1": False,
        "containerRuntimeEndpoint": f"unix://{s.containerd_socket}",
        "cgroupDriver": "cgroupfs",
        "cgroupsPerQOS": True,
        "cgroupRoot": "/",
        "enforceNodeAllocatable": ["pods"],
        "failSwapOn": False,
        "address": s.node_ip,
        "port": s.kubelet_port,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": 10248,
        "readOnlyPort": 0,
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(s.pki_dir / "client-ca.crt")},
        },
        "authorization": {"mode": "Webhook"},
        "clusterDNS": [s.dns_service_ip],
        "clusterDomain": "cluster.local",
        "resolvConf": str(s.state_dir / "kubelet" / "resolv.conf"),
        "podLogsDir": str(s.state_dir / "pod-logs"),
        # Offline: an image removed by GC can never be pulled back.
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "evictionHard": {
            "memory.available": "100Mi",
            "nodefs.available": "2%",
            "imagefs.available": "2%",
            "nodefs.inodesFree": "2%",
        },
        "serializeImagePulls": False,
        "staticPodPath": "",
        "runtimeRequestTimeout": "2m",
        "maxPods": 110,
        "protectKernelDefaults": False,
    }
    return yaml.safe_dump(conf, sort_keys=False)


HEALTH_PATHS = ("/livez", "/readyz", "/healthz")
"""The only paths the apiserver serves to anonymous callers (load balancers, probes)."""


def authentication_config() -> str:
    """The apiserver's AuthenticationConfiguration: anonymous only for `HEALTH_PATHS`.

    Structured anonymous conditions are GA (locked on) since 1.34; the file
    replaces --anonymous-auth, which must then be absent. Certificates and
    service-account tokens are configured by flags, as before.
    """
    conf = {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthenticationConfiguration",
        "anonymous": {
            "enabled": True,
            "conditions": [{"path": path} for path in HEALTH_PATHS],
        },
    }
    return yaml.safe_dump(conf, sort_keys=False)


def kube_proxy_config(s: LocalSettings) -> str:
    """kube-proxy in iptables mode; conntrack sysctls left alone (maxPerCore 0)."""
    conf = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
        "kind": "KubeProxyConfiguration",
        "clientConnection": {"kubeconfig": str(s.pki_dir / "kube-proxy.kubeconfig")},
        "hostnameOverride": s.node_name,
        "mode": "iptables",
        "clusterCIDR": s.pod_cidr,
        "bindAddress": "127.0.0.1",
        "healthzBindAddress": "127.0.0.1:10256",
        "metricsBindAddress": "127.0.0.1:10249",
        "conntrack": {
            "maxPerCore": 0,
            "tcpEstablishedTimeout": "0s",
            "tcpCloseWaitTimeout": "0s",
        },
    }
    return yaml.safe_dump(conf, sort_keys=False)


def scheduler_config(s: LocalSettings) -> str:
    """KubeSchedulerConfiguration: one replica, no leader election."""
    conf = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(s.pki_dir / "scheduler.kubeconfig")},
        "leaderElection": {"leaderElect": False},
    }
    return yaml.safe_dump(conf, sort_keys=False)


def pod_resolv_conf(s: LocalSettings) -> str:
    """The host resolv.conf pods would inherit: empty of outside resolvers on purpose.

    Pods with dnsPolicy Default get this file; pointing it at cluster DNS keeps
    every lookup inside the cluster (CoreDNS forwards nothing).
    """
    return f"nameserver {s.dns_service_ip}\n"
