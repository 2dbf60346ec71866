"""The node image's pod network: bridge + host-local per node, routes between nodes.

kind's own CNI (kindnetd) is not buildable offline, so the image carries a
small one of its own (issue 15). A systemd service in every node,
`wpc-pod-network`, watches the Node objects with the kubelet's credentials;
on every change it writes this node's CNI config for the pod subnet the
controller-manager allocated to it (`spec.podCIDR`), and routes every other
node's pod subnet via that node's InternalIP. The nodes share one Docker
network, so one hop reaches any of them. Nothing is masqueraded: pod
addresses are routable between the nodes, and no pod traffic leaves them.

Listing Nodes needs more than the Node authorizer gives a kubelet (its own
Node only), so the image's cluster manifest grants `list`/`watch` on Nodes to
the `system:nodes` group; kind applies that manifest right after `kubeadm
init`, before any worker joins.
"""

from __future__ import annotations

import json
from typing import Any

BRIDGE = "wpc0"
CNI_CONFIG = "/etc/cni/net.d/10-wpc.conflist"
RBAC_NAME = "wpc:pod-network"


def conflist_template() -> str:
    """The CNI config with `@SUBNET@` where the node's pod subnet goes."""
    conf = {
        "cniVersion": "1.0.0",
        "name": "wpc-pod-network",
        "plugins": [
            {
                "type": "bridge",
                "bridge": BRIDGE,
                "isGateway": True,
                "ipMasq": False,
                "hairpinMode": True,
                "ipam": {
                    "type": "host-local",
                    "ranges": [[{"subnet": "@SUBNET@"}]],
                    "routes": [{"dst": "0.0.0.0/0"}],
                },
            },
            {"type": "portmap", "capabilities": {"portMappings": True}},
        ],
    }
    return json.dumps(conf, indent=2) + "\n"


SYNC_SCRIPT = (
    r"""#!/bin/bash
# wpc-pod-network: CNI config for this node's pod subnet, routes to the others'.
# See clusters/kind/networking.py.
set -o errexit -o nounset -o pipefail

kubeconfig=/etc/kubernetes/kubelet.conf
me=$(hostname)
kubectl=(kubectl --kubeconfig "${kubeconfig}")

fields='{.metadata.name} {.spec.podCIDR} '
fields+='{.status.addresses[?(@.type=="InternalIP")].address}'

sync_once() {
  local name cidr address nodes
  nodes=$("${kubectl[@]}" get nodes -o jsonpath="{range .items[*]}${fields}{\"\\n\"}{end}")
  write_hosts "${nodes}"
  while read -r name cidr address; do
    [[ -n ${cidr:-} && -n ${address:-} ]] || continue
    if [[ ${name} == "${me}" ]]; then
      write_config "${cidr}"
    else
      ip route replace "${cidr}" via "${address}"
    fi
  done <<< "${nodes}"
}

# Pods use their own resolv.conf, without Docker's DNS (see entrypoint.py); a
# host-network pod (kube-proxy) still needs the control plane's name, so every
# node's name goes into /etc/hosts, which such pods share with the node.
write_hosts() {
  local wanted
  wanted=$(awk 'NF == 3 && $3 != "" {print $3 "\t" $1 "  # wpc-pod-network"}' <<< "$1")
  if [[ $(grep '# wpc-pod-network$' /etc/hosts || true) != "${wanted}" ]]; then
    # Docker bind-mounts /etc/hosts: rewrite it in place, never replace the file.
    { grep -v '# wpc-pod-network$' /etc/hosts || true; printf '%s\n' "${wanted}"; } > /tmp/wpc-hosts
    cat /tmp/wpc-hosts > /etc/hosts
  fi
}

write_config() {
  local wanted
  wanted=$(sed "s#@SUBNET@#$1#" <<'CONF'
"""
    + "@CONFLIST@"
    + r"""CONF
)
  if [[ ! -f @CNI_CONFIG@ ]] || [[ $(cat @CNI_CONFIG@) != "${wanted}" ]]; then
    mkdir -p "$(dirname @CNI_CONFIG@)"
    printf '%s\n' "${wanted}" > @CNI_CONFIG@.tmp
    mv @CNI_CONFIG@.tmp @CNI_CONFIG@
    echo "wpc-pod-network: pod subnet $1 configured"
  fi
}

sync_once
# Every Node event (a node joined, got its subnet, changed address) re-syncs all.
"${kubectl[@]}" get nodes --watch --output-watch-events -o name |
while read -r _event; do
  sync_once
done
"""
)


def sync_script() -> str:
    """The network service's script, with the CNI config template filled in."""
    return SYNC_SCRIPT.replace("@CONFLIST@", conflist_template()).replace(
        "@CNI_CONFIG@", CNI_CONFIG
    )


SERVICE_UNIT = """[Unit]
Description=wpc pod network: CNI config and routes between nodes
After=kubelet.service
ConditionPathExists=/etc/kubernetes/kubelet.conf
StartLimitIntervalSec=0

[Service]
ExecStart=/usr/local/bin/wpc-pod-network
Restart=always
RestartSec=1s
"""

PATH_UNIT = """[Unit]
Description=start the wpc pod network once the kubelet has its credentials

[Path]
PathExists=/etc/kubernetes/kubelet.conf
Unit=wpc-pod-network.service

[Install]
WantedBy=multi-user.target
"""


def rbac() -> list[dict[str, Any]]:
    """Let every kubelet identity list and watch Nodes (the network service needs all)."""
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": RBAC_NAME},
            "rules": [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "watch"]}
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": RBAC_NAME},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": RBAC_NAME,
            },
            "subjects": [
                {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "Group",
                    "name": "system:nodes",
                }
            ],
        },
    ]
