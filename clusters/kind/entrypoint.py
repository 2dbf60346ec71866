"""The node image's entrypoint: what must happen before systemd becomes PID 1.

Written for this project from the behaviour kind's nodes need (issue 15,
`shared/reference/kind-offline-notes.md`), not copied. In order:

1. containerd may not ask for a negative oom_score_adj where the node lacks
   CAP_SYS_RESOURCE (the kernel refuses it, and every sandbox would die);
2. `/` becomes rshared (mount propagation for kubelet volumes);
3. on cgroup v1 (only with a private cgroup namespace) the `misc` hierarchy is
   hidden, and every hierarchy gets `kubelet` and `kubelet.slice` children
   bind-mounted onto themselves: kind's kubelet config names `/kubelet` as its
   cgroup root, and the bind mount keeps systemd from pruning it; containerd
   switches to the cgroupfs driver (the kubelet too, by the kind config): runc's
   systemd driver freezes a v1 container before setting its resources, and that
   freeze fails under load ("unable to freeze": pods end in StartError);
4. a fresh machine id and a random product UUID per node container;
5. iptables uses the backend that already holds rules (Docker's DNS rules in
   this network namespace): legacy or nft;
6. bridged pod traffic goes through iptables (kube-proxy's Service rules);
7. pods get their own resolv.conf (`/kind/pod-resolv.conf`, which the kubelet
   is pointed at): Docker's embedded DNS (127.0.0.11) is loopback, so a pod
   that forwards to it (CoreDNS, dnsPolicy Default) would ask itself, and
   CoreDNS's loop plugin stops it. The node's default gateway takes its
   place; offline, nothing answers there, and only cluster names resolve;
then `exec` of the command (`/sbin/init`).
"""

from __future__ import annotations

SCRIPT = r"""#!/bin/bash
# wpc kind node entrypoint (see clusters/kind/entrypoint.py for why each step exists).
set -o errexit -o nounset -o pipefail

say() { echo "wpc-entrypoint: $*" >&2; }

node_lacks_sys_resource() {
  local mask
  mask=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
  (( (16#${mask} >> 24 & 1) == 0 ))
}

containerd_oom() {
  if node_lacks_sys_resource; then
    say "no CAP_SYS_RESOURCE in the bounding set: containerd restricts oom_score_adj"
    sed -i 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' \
      /etc/containerd/config.toml
  fi
}

shared_root() {
  mount --make-rshared /
}

hide_misc_hierarchy() {
  [[ -d /sys/fs/cgroup/misc ]] || return 0
  say "hiding the misc cgroup hierarchy"
  umount /sys/fs/cgroup/misc || say "could not unmount /sys/fs/cgroup/misc"
  rmdir /sys/fs/cgroup/misc || say "could not remove /sys/fs/cgroup/misc"
  grep -v misc /proc/cgroups > /kind/cgroups-without-misc
  mount --bind /kind/cgroups-without-misc /proc/cgroups
}

kubelet_cgroup() {
  local hierarchy=$1 child=$2
  mkdir -p "${hierarchy}/${child}"
  if [[ ${hierarchy} == */cpuset ]]; then
    cp "${hierarchy}/cpuset.cpus" "${hierarchy}/${child}/cpuset.cpus"
    cp "${hierarchy}/cpuset.mems" "${hierarchy}/${child}/cpuset.mems"
  fi
  mount --bind "${hierarchy}/${child}" "${hierarchy}/${child}"
}

cgroups() {
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    say "cgroup v2: the kubelet unit prepares its cgroups"
    return 0
  fi
  say "detected cgroup v1"
  # runc's systemd driver freezes a cgroup v1 container before setting its
  # resources, and under load the freeze fails ("unable to freeze"): pods die
  # with StartError. The cgroupfs driver never freezes there; the kubelet is
  # told the same driver by the kind config (clusters/kind/configs.py).
  say "cgroup v1: containerd uses the cgroupfs driver"
  sed -i 's/SystemdCgroup = true/SystemdCgroup = false/' /etc/containerd/config.toml
  local own
  own=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' /proc/self/cgroup)
  if [[ ${own} != / ]]; then
    say "cgroup v1 needs a private cgroup namespace (docker run --cgroupns=private); in ${own}"
    exit 1
  fi
  hide_misc_hierarchy
  mount --make-rprivate /sys/fs/cgroup
  local hierarchy
  for hierarchy in $(findmnt -lun -o target -t cgroup); do
    kubelet_cgroup "${hierarchy}" kubelet
    kubelet_cgroup "${hierarchy}" kubelet.slice
  done
}

identity() {
  rm -f /etc/machine-id
  systemd-machine-id-setup > /dev/null
  [[ -f /kind/product_uuid ]] || cat /proc/sys/kernel/random/uuid > /kind/product_uuid
  local f
  for f in /sys/class/dmi/id/product_uuid /sys/devices/virtual/dmi/id/product_uuid; do
    [[ -f ${f} ]] && mount -o ro,bind /kind/product_uuid "${f}"
  done
  return 0
}

count_rules() {
  ( "$@" 2>/dev/null || true ) | grep -c '^-' || true
}

iptables_backend() {
  local legacy nft mode=nft
  legacy=$(( $(count_rules iptables-legacy-save) + $(count_rules ip6tables-legacy-save) ))
  nft=$(( $(count_rules timeout 5 iptables-nft-save) + $(count_rules timeout 5 ip6tables-nft-save) ))
  (( legacy > nft )) && mode=legacy
  say "iptables backend: ${mode} (rules found: legacy ${legacy}, nft ${nft})"
  update-alternatives --set iptables "/usr/sbin/iptables-${mode}" > /dev/null
  update-alternatives --set ip6tables "/usr/sbin/ip6tables-${mode}" > /dev/null
}

bridged_traffic() {
  modprobe br_netfilter 2> /dev/null || true
  if [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]]; then
    echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables
  fi
}

pod_dns() {
  local gateway
  gateway=$(ip -4 route show default | awk '{print $3; exit}')
  if [[ -n ${gateway} ]] && grep -q '^nameserver 127\.' /etc/resolv.conf; then
    sed "s/^nameserver 127\..*/nameserver ${gateway}/" /etc/resolv.conf > /kind/pod-resolv.conf
  else
    cp /etc/resolv.conf /kind/pod-resolv.conf
  fi
  say "pods resolve through: $(grep ^nameserver /kind/pod-resolv.conf | tr '\n' ' ')"
}

containerd_oom
shared_root
cgroups
identity
iptables_backend
bridged_traffic
pod_dns
say "starting $*"
exec "$@"
"""
