"""The kind Cluster config: one control-plane node, N workers, our pod network.

kind's default CNI (kindnetd) cannot be built offline, so the config turns it
off (`disableDefaultCNI`) and the node image brings its own (`networking`);
a given node image (upstream kindest/node, host mode) keeps kindnetd.
Kubelet 1.36 refuses cgroup v1 hosts unless `failCgroupV1: false`
(k8s.io/kubernetes `pkg/kubelet/apis/config/v1beta1/defaults.go`); the patch
applies cluster-wide, so every node's kubelet gets it. Image volumes need no
gate on 1.36, where ImageVolume is GA and locked on; a given 1.35 node image
gets `featureGates: {ImageVolume: true}`.

The node lifecycle controller marks a silent node NotReady after
`--node-monitor-grace-period` (default 50 s in 1.36,
`pkg/controller/nodelifecycle/config/v1alpha1/defaults.go`). The multi-node chaos
experiments stop a worker and wait for that, so the config shortens it to
`NODE_MONITOR_GRACE_PERIOD`: two of the kubelet's 10 s status updates missed.
kind merges `extraArgs` of a patch without apiVersion into its kubeadm
v1beta4 list by name (`pkg/internal/patch/kubeadm_merge.go`).
"""

from __future__ import annotations

from typing import Any

import yaml

IMAGE_VOLUME_GA = 36
"""The Kubernetes minor where ImageVolume is GA and locked on; before it (a given
1.35 node image) the suite's image volumes need the feature gate."""

NODE_MONITOR_GRACE_PERIOD = "20s"
"""kube-controller-manager's `--node-monitor-grace-period` in our kind clusters."""


def config(
    *,
    cgroup_v1: bool,
    workers: int = 0,
    image_volume_gate: bool = False,
    own_node_image: bool = True,
) -> dict[str, Any]:
    """The kind Cluster config as data.

    `image_volume_gate`: turn ImageVolume on (nodes before IMAGE_VOLUME_GA).
    `own_node_image`: our image's entrypoint switches containerd to cgroupfs on
    cgroup v1, so the kubelet follows; a given image keeps its own driver.
    """
    nodes: list[dict[str, Any]] = [{"role": "control-plane"}]
    nodes += [{"role": "worker"} for _ in range(workers)]
    cfg: dict[str, Any] = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        # Our image carries its own pod network (`networking`); a given image
        # (upstream kindest/node) brings kindnetd, kind's default CNI.
        "networking": {"disableDefaultCNI": own_node_image},
        "nodes": nodes,
    }
    if image_volume_gate:
        cfg["featureGates"] = {"ImageVolume": True}
    patches = [
        yaml.safe_dump(
            {
                "kind": "ClusterConfiguration",
                "controllerManager": {
                    "extraArgs": [
                        {
                            "name": "node-monitor-grace-period",
                            "value": NODE_MONITOR_GRACE_PERIOD,
                        }
                    ]
                },
            }
        )
    ]
    if cgroup_v1:
        kubelet: dict[str, Any] = {
            "kind": "KubeletConfiguration",
            "failCgroupV1": False,
        }
        if own_node_image:
            # As containerd in the node (the entrypoint switches it): runc's
            # systemd driver freezes v1 containers before setting resources,
            # which fails under load.
            kubelet["cgroupDriver"] = "cgroupfs"
        patches.append(yaml.safe_dump(kubelet))
    cfg["kubeadmConfigPatches"] = patches
    return cfg


def render(
    *,
    cgroup_v1: bool,
    workers: int = 0,
    image_volume_gate: bool = False,
    own_node_image: bool = True,
) -> str:
    """The config as the YAML `kind create cluster --config` reads."""
    return yaml.safe_dump(
        config(
            cgroup_v1=cgroup_v1,
            workers=workers,
            image_volume_gate=image_volume_gate,
            own_node_image=own_node_image,
        ),
        sort_keys=False,
    )
