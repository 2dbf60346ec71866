"""The images kubeadm v1.36.4 runs, built here under the exact names it asks for.

`kubeadm config images list --kubernetes-version v1.36.4` names them; kubeadm
never pulls an image containerd already has, so the node image carries them
all (issue 15). Their content is the project's pinned builds: etcd is
`pins.ETCD` and CoreDNS `pins.COREDNS` under the names kubeadm expects, and
each image's `org.opencontainers.image.version` label says what is inside.
Binaries are static, so every image but kube-proxy is `FROM scratch`;
kube-proxy's iptables mode shells out to iptables-restore and conntrack, so
its image is a Debian root file system with an iptables front end that
follows the node's backend (the one holding the kubelet's KUBE-IPTABLES-HINT
chain).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from clusters import pins

REGISTRY = "registry.k8s.io"
KUBEADM_ETCD_TAG = "3.6.8-0"
KUBEADM_COREDNS_TAG = "v1.14.2"
"""The tags `kubeadm config images list` prints for v1.36.4 (checked with the built kubeadm)."""

IPTABLES_FRONT_END = """#!/bin/sh
# Run iptables with the backend the node's kubelet chose (see componentimages.py).
state=/tmp/wpc-iptables-backend
backend=$(cat "$state" 2>/dev/null || true)
if [ -z "$backend" ]; then
  backend=nft
  if xtables-legacy-multi iptables-save -t mangle 2>/dev/null | grep -q KUBE-IPTABLES-HINT; then
    backend=legacy
  fi
  echo "$backend" > "$state" 2>/dev/null || true
fi
exec "xtables-$backend-multi" "$(basename "$0")" "$@"
"""

IPTABLES_COMMANDS = (
    "iptables",
    "iptables-save",
    "iptables-restore",
    "ip6tables",
    "ip6tables-save",
    "ip6tables-restore",
)


@dataclass(frozen=True)
class ComponentImage:
    """One image: its full name, what goes in (context file -> image path), its Dockerfile."""

    name: str
    files: dict[str, Path]
    """Context file name -> source path on the host."""
    dockerfile: str
    texts: dict[str, str] = field(default_factory=dict)
    """Context file name -> text, for small files written by us."""


def _binary_image(
    tag: str, binaries: list[Path], version: str, entrypoint: str = ""
) -> ComponentImage:
    copies = "\n".join(f"COPY {b.name} /usr/local/bin/{b.name}" for b in binaries)
    lines = [
        "FROM scratch",
        copies,
        "ENV PATH=/usr/local/bin:/usr/bin:/bin",
        f"LABEL org.opencontainers.image.version={version}",
    ]
    if entrypoint:
        lines.append(f'ENTRYPOINT ["{entrypoint}"]')
    return ComponentImage(
        name=tag,
        files={b.name: b for b in binaries},
        dockerfile="\n".join(lines) + "\n",
    )


def images(
    *,
    kubernetes: Path,
    etcd: Path,
    coredns: Path,
    pause: Path,
    proxy_rootfs: Path,
) -> list[ComponentImage]:
    """Every image of the node, from the directories holding the built binaries."""
    k8s = pins.KUBERNETES
    found = [
        _binary_image(f"{REGISTRY}/{c}:{k8s}", [kubernetes / c], k8s)
        for c in ("kube-apiserver", "kube-controller-manager", "kube-scheduler")
    ]
    found.append(
        _binary_image(
            f"{REGISTRY}/etcd:{KUBEADM_ETCD_TAG}",
            [etcd / "etcd", etcd / "etcdctl"],
            pins.ETCD,
        )
    )
    found.append(
        ComponentImage(
            name=f"{REGISTRY}/coredns/coredns:{KUBEADM_COREDNS_TAG}",
            files={"coredns": coredns / "coredns"},
            dockerfile=(
                "FROM scratch\nCOPY coredns /coredns\n"
                f"LABEL org.opencontainers.image.version={pins.COREDNS}\n"
                'ENTRYPOINT ["/coredns"]\n'
            ),
        )
    )
    found.append(
        ComponentImage(
            name=pins.SANDBOX_IMAGE,
            files={"pause": pause / "pause"},
            dockerfile=(
                "FROM scratch\nCOPY pause /pause\n"
                f"LABEL org.opencontainers.image.version={pins.PAUSE}\n"
                'ENTRYPOINT ["/pause"]\n'
            ),
        )
    )
    links = " && ".join(
        f"ln -sf iptables-front-end /usr/sbin/{c}" for c in IPTABLES_COMMANDS
    )
    found.append(
        ComponentImage(
            name=f"{REGISTRY}/kube-proxy:{k8s}",
            files={"rootfs.tar": proxy_rootfs, "kube-proxy": kubernetes / "kube-proxy"},
            dockerfile=(
                "FROM scratch\nADD rootfs.tar /\n"
                "COPY kube-proxy /usr/local/bin/kube-proxy\n"
                "COPY iptables-front-end /usr/sbin/iptables-front-end\n"
                f"RUN chmod 0755 /usr/sbin/iptables-front-end && {links}\n"
                f"LABEL org.opencontainers.image.version={k8s}\n"
            ),
            texts={"iptables-front-end": IPTABLES_FRONT_END},
        )
    )
    return found
