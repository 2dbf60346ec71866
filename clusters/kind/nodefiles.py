"""Every file the project adds to the node's root file system, rendered as text.

Units and configs are written for this project from what kind's nodes are
known to need (`shared/reference/kind-offline-notes.md`), never copied:
containerd runs the CRI with the systemd cgroup driver kind's kubelet config
asks for; the kubelet starts only once kubeadm wrote its config, and reads
kubeadm's flag files; the kubelet gets its own slice; kind reads
`/kind/version` and applies `/kind/manifests/*.yaml` with the admin
credentials after `kubeadm init`.
"""

from __future__ import annotations

from typing import Any

import yaml

from clusters import pins
from clusters.kind import entrypoint
from clusters.kind import networking

CONTAINERD_CONFIG = f"""version = 3

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  # Nothing is ever pulled: every image is in the node image or loaded by kind.
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = '{pins.SANDBOX_IMAGE}'

[plugins.'io.containerd.cri.v1.runtime']
  # The entrypoint turns this on where the node lacks CAP_SYS_RESOURCE.
  restrict_oom_score_adj = false
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        SystemdCgroup = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/opt/cni/bin']
    conf_dir = '/etc/cni/net.d'
"""

CONTAINERD_UNIT = """[Unit]
Description=containerd (the node's container runtime)
After=network.target local-fs.target
StartLimitIntervalSec=0

[Service]
ExecStartPre=-/sbin/modprobe overlay
ExecStart=/usr/local/bin/containerd
Type=notify
Delegate=yes
KillMode=process
Restart=always
RestartSec=1
LimitNOFILE=infinity
LimitNPROC=infinity
LimitCORE=infinity
TasksMax=infinity

[Install]
WantedBy=multi-user.target
"""

KUBELET_UNIT = """[Unit]
Description=kubelet (started by kubeadm once it wrote the config)
ConditionPathExists=/var/lib/kubelet/config.yaml
After=containerd.service
StartLimitIntervalSec=0

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
RestartSec=1s
Slice=kubelet.slice
KillMode=process
CPUAccounting=true
MemoryAccounting=true

[Install]
WantedBy=multi-user.target
"""

KUBELET_KUBEADM_DROPIN = (
    (
        "[Service]\n"
        'Environment="KUBELET_KUBECONFIG_ARGS='
        "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf "
        '--kubeconfig=/etc/kubernetes/kubelet.conf"\n'
    )
    + """Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
"""
)

KUBELET_CGROUPS_DROPIN = """[Service]
# cgroup v2: the kubelet's cgroup root (/kubelet) needs the controllers delegated.
ExecStartPre=/usr/local/bin/wpc-kubelet-cgroups
"""

KUBELET_CGROUPS_SCRIPT = r"""#!/bin/bash
# Prepare the kubelet's cgroups before it starts (see clusters/kind/nodefiles.py).
set -o errexit -o nounset -o pipefail
if [[ ! -f /sys/fs/cgroup/cgroup.controllers ]]; then
  mkdir -p /sys/fs/cgroup/systemd/kubelet
  exit 0
fi
delegate() {
  sed -e 's/^/+/' -e 's/ / +/g' "/sys/fs/cgroup$1/cgroup.controllers" \
    > "/sys/fs/cgroup$1/cgroup.subtree_control"
}
delegate ""
for child in /kubelet /kubelet.slice; do
  mkdir -p "/sys/fs/cgroup${child}"
  delegate "${child}"
done
"""

KUBELET_SLICE = """[Unit]
Description=slice of the kubelet and its pods
Before=slices.target

[Slice]
CPUAccounting=true
MemoryAccounting=true
"""

KUBELET_DEFAULTS = (
    "KUBELET_EXTRA_ARGS=--runtime-cgroups=/system.slice/containerd.service"
    " --resolv-conf=/kind/pod-resolv.conf\n"
)
"""Where containerd runs (runtime statistics), and the pods' resolv.conf the
entrypoint writes (a flag, so the image works with any kind config)."""

CRICTL_CONFIG = "runtime-endpoint: unix:///run/containerd/containerd.sock\n"

ENABLED_UNITS = ("containerd.service", "kubelet.service", "wpc-pod-network.path")


def cluster_manifest(image_tag: str) -> str:
    """What kind applies after `kubeadm init`: the network's RBAC and a record of the image."""
    record: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "wpc-node-image",
            "namespace": "kube-system",
            "labels": {"app.kubernetes.io/managed-by": "wpc"},
        },
        "data": {
            "image": image_tag,
            "kubernetes": pins.KUBERNETES,
            "containerd": pins.CONTAINERD,
            "runc": pins.RUNC,
            "etcd": pins.ETCD,
            "coredns": pins.COREDNS,
            "cni-plugins": pins.CNI_PLUGINS,
            "storage": "none (no default StorageClass)",
        },
    }
    return yaml.safe_dump_all([*networking.rbac(), record], sort_keys=False)


def files(image_tag: str) -> dict[str, tuple[str, int]]:
    """Path in the node -> (content, mode) of every text file the image adds."""
    manifest = cluster_manifest(image_tag)
    return {
        "/usr/local/bin/entrypoint": (entrypoint.SCRIPT, 0o755),
        "/usr/local/bin/wpc-pod-network": (networking.sync_script(), 0o755),
        "/usr/local/bin/wpc-kubelet-cgroups": (KUBELET_CGROUPS_SCRIPT, 0o755),
        "/etc/containerd/config.toml": (CONTAINERD_CONFIG, 0o644),
        "/etc/crictl.yaml": (CRICTL_CONFIG, 0o644),
        "/etc/default/kubelet": (KUBELET_DEFAULTS, 0o644),
        "/etc/systemd/system/containerd.service": (CONTAINERD_UNIT, 0o644),
        "/etc/systemd/system/kubelet.service": (KUBELET_UNIT, 0o644),
        "/etc/systemd/system/kubelet.slice": (KUBELET_SLICE, 0o644),
        "/etc/systemd/system/kubelet.service.d/10-kubeadm.conf": (
            KUBELET_KUBEADM_DROPIN,
            0o644,
        ),
        "/etc/systemd/system/kubelet.service.d/20-wpc-cgroups.conf": (
            KUBELET_CGROUPS_DROPIN,
            0o644,
        ),
        "/etc/systemd/system/wpc-pod-network.service": (
            networking.SERVICE_UNIT,
            0o644,
        ),
        "/etc/systemd/system/wpc-pod-network.path": (networking.PATH_UNIT, 0o644),
        "/kind/version": (pins.KUBERNETES + "\n", 0o644),
        # kind applies the CNI manifest unless disableDefaultCNI, and the storage
        # manifest always: both carry the network's RBAC, so either config works.
        "/kind/manifests/default-cni.yaml": (manifest, 0o644),
        "/kind/manifests/default-storage.yaml": (manifest, 0o644),
    }
