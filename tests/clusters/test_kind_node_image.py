"""The offline kind node image: its files, scripts, component images and cache key.

We test these aspects: the entrypoint and the pod-network script are valid
bash and do each step the node needs (oom restriction without
CAP_SYS_RESOURCE, rshared /, cgroup v1 kubelet cgroups, machine id,
iptables backend, bridged traffic); the CNI config is bridge + host-local on
the node's subnet without masquerading; the manifests kind applies grant
list/watch on Nodes to system:nodes and record the image; the base image
keeps STOPSIGNAL and the entrypoint; component images carry exactly the
names kubeadm v1.36.4 lists; the cache key is stable and moves with a pin;
mmdebstrap gets minbase plus the package list.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from clusters import pins
from clusters.kind import componentimages
from clusters.kind import entrypoint
from clusters.kind import networking
from clusters.kind import nodefiles
from clusters.kind import nodeimage
from clusters.kind import rootfs

KUBEADM_IMAGES = {
    # `kubeadm config images list --kubernetes-version v1.36.4`, run with the built kubeadm.
    "registry.k8s.io/kube-apiserver:v1.36.4",
    "registry.k8s.io/kube-controller-manager:v1.36.4",
    "registry.k8s.io/kube-scheduler:v1.36.4",
    "registry.k8s.io/kube-proxy:v1.36.4",
    "registry.k8s.io/coredns/coredns:v1.14.2",
    "registry.k8s.io/pause:3.10.2",
    "registry.k8s.io/etcd:3.6.8-0",
}


@pytest.mark.parametrize(
    "script", [entrypoint.SCRIPT, networking.sync_script()], ids=["entrypoint", "net"]
)
def test_the_node_scripts_are_valid_bash(script, tmp_path):
    path = tmp_path / "s.sh"
    path.write_text(script)
    done = subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-n", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=5,
    )
    assert done.returncode == 0, done.stderr


def test_the_entrypoint_does_every_step_then_execs_init():
    body = entrypoint.SCRIPT.split("\ncontainerd_oom\n", 1)[1]
    steps = [line for line in body.splitlines() if line and not line.startswith("say")]
    assert steps == [
        "shared_root",
        "cgroups",
        "identity",
        "iptables_backend",
        "bridged_traffic",
        "pod_dns",
        'exec "$@"',
    ]
    assert "restrict_oom_score_adj = true" in entrypoint.SCRIPT
    assert ">> 24 & 1" in entrypoint.SCRIPT  # CAP_SYS_RESOURCE's bit


def test_on_cgroup_v1_the_entrypoint_really_switches_containerd_to_cgroupfs(tmp_path):
    """The entrypoint's sed, run on the node image's containerd config, flips the driver."""
    line = next(
        x for x in entrypoint.SCRIPT.splitlines() if "SystemdCgroup = false" in x
    )
    config = tmp_path / "config.toml"
    config.write_text(nodefiles.CONTAINERD_CONFIG)
    done = subprocess.run(
        [
            "bash",
            "-c",
            line.strip().replace("/etc/containerd/config.toml", str(config)),
        ],
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = config.read_text()
    assert "SystemdCgroup = false" in text
    assert "SystemdCgroup = true" not in text
    cgroups_v1 = entrypoint.SCRIPT.split('say "detected cgroup v1"', 1)[1]
    assert cgroups_v1.index("SystemdCgroup = false") < cgroups_v1.index("\n}")


def test_the_cni_config_is_a_bridge_on_the_nodes_subnet_without_masquerade():
    conf = json.loads(
        networking.conflist_template().replace("@SUBNET@", "10.244.1.0/24")
    )
    bridge = conf["plugins"][0]
    assert bridge["type"] == "bridge"
    assert bridge["ipMasq"] is False
    assert bridge["ipam"]["ranges"] == [[{"subnet": "10.244.1.0/24"}]]
    assert networking.conflist_template() in networking.sync_script()
    assert "ip route replace" in networking.sync_script()
    assert "cat /tmp/wpc-hosts > /etc/hosts" in networking.sync_script()


def test_the_manifests_kind_applies_grant_node_listing_and_record_the_image():
    files = nodefiles.files("wpc.local/kind-node:v1.36.4-abc")
    docs = list(yaml.safe_load_all(files["/kind/manifests/default-storage.yaml"][0]))
    kinds = [d["kind"] for d in docs]
    assert kinds == ["ClusterRole", "ClusterRoleBinding", "ConfigMap"]
    assert docs[0]["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "watch"]}
    ]
    assert docs[1]["subjects"][0]["name"] == "system:nodes"
    assert docs[2]["data"]["image"] == "wpc.local/kind-node:v1.36.4-abc"
    assert "StorageClass" not in kinds
    assert files["/kind/version"][0] == pins.KUBERNETES + "\n"
    # Pods never get Docker's loopback DNS (CoreDNS would ask itself: loop).
    assert "--resolv-conf=/kind/pod-resolv.conf" in files["/etc/default/kubelet"][0]
    assert "/kind/pod-resolv.conf" in entrypoint.SCRIPT
    assert files["/usr/local/bin/entrypoint"][1] == 0o755


def test_the_base_image_boots_systemd_with_our_units():
    dockerfile = nodeimage.base_dockerfile()
    assert dockerfile.startswith("FROM scratch\nADD rootfs.tar /\n")
    assert "STOPSIGNAL SIGRTMIN+3" in dockerfile
    assert 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' in dockerfile
    assert (
        "systemctl enable containerd.service kubelet.service wpc-pod-network.path"
        in (dockerfile)
    )
    units = nodefiles.files("")
    for unit in nodefiles.ENABLED_UNITS:
        assert f"/etc/systemd/system/{unit}" in units


def test_component_images_carry_exactly_the_names_kubeadm_lists(tmp_path):
    found = componentimages.images(
        kubernetes=tmp_path,
        etcd=tmp_path,
        coredns=tmp_path,
        pause=tmp_path,
        proxy_rootfs=tmp_path / "r.tar",
    )
    assert {i.name for i in found} == KUBEADM_IMAGES
    by_name = {i.name: i for i in found}
    assert f"version={pins.ETCD}" in by_name["registry.k8s.io/etcd:3.6.8-0"].dockerfile
    proxy = by_name["registry.k8s.io/kube-proxy:v1.36.4"]
    assert proxy.dockerfile.startswith("FROM scratch\nADD rootfs.tar /\n")
    assert "iptables-front-end" in proxy.texts
    assert "ln -sf iptables-front-end /usr/sbin/iptables-restore" in proxy.dockerfile


def test_the_cache_key_is_stable_and_moves_with_a_pin(monkeypatch):
    first = nodeimage.key()
    assert nodeimage.key() == first
    assert nodeimage.tag() == f"wpc.local/kind-node:{pins.KUBERNETES}-{first}"
    monkeypatch.setattr(pins, "CONTAINERD", "v9.9.9")
    assert nodeimage.key() != first


def test_mmdebstrap_gets_minbase_and_the_package_list():
    argv = rootfs.command(rootfs.KUBE_PROXY_PACKAGES, Path("/o.tar"))
    assert argv[:3] == [
        "mmdebstrap",
        "--variant=minbase",
        "--include=iptables,conntrack,kmod",
    ]
    assert argv[-3:] == ["bookworm", "/o.tar", rootfs.MIRROR]
    assert rootfs.key(rootfs.NODE_PACKAGES) != rootfs.key(rootfs.KUBE_PROXY_PACKAGES)
