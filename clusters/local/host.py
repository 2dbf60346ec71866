"""Host preparation and cleanup for the local cluster: kernel, network, mounts, cgroups.

Network safety is part of preparation, not an afterthought: while the cluster
runs, blackhole routes catch any packet for a service or pod address that
nothing translated, and the WPC-EGRESS chain drops pod traffic that would
leave through anything but the pod bridge. No cluster traffic leaves the
machine. In the other direction, the WPC-INGRESS chain drops connections to
the apiserver and kubelet ports unless they come from this machine itself
(loopback) or from a pod (the pod bridge): both listen on the node IP, which
the machine's network could otherwise reach.
"""

from __future__ import annotations

import logging
from pathlib import Path

from clusters.errors import RunError
from clusters.local.settings import LocalSettings
from plumbing import commands

logger = logging.getLogger(__name__)

EGRESS_CHAIN = "WPC-EGRESS"
INGRESS_CHAIN = "WPC-INGRESS"
OWNED_CHAIN_PREFIXES = ("KUBE-", "CNI-", "WPC-")
SYSCTLS = {
    "net.ipv4.ip_forward": "1",
    "net.bridge.bridge-nf-call-iptables": "1",
}
CGROUP_ROOT = Path("/sys/fs/cgroup")


def prepare(s: LocalSettings) -> None:
    """Load modules, set sysctls, make / rshared, add routes and the egress guard."""
    for module in ("overlay", "br_netfilter"):
        commands.attempt(
            ["modprobe", module]
        )  # built in on some kernels: a failure is not fatal
    for key, value in SYSCTLS.items():
        Path("/proc/sys", *key.split(".")).write_text(value)
    # Without systemd, / is private; kubelet volume propagation needs rshared.
    commands.capture(["mount", "--make-rshared", "/"], error=RunError)
    for cidr in (s.service_cidr, s.pod_cidr):
        commands.attempt(["ip", "route", "del", "blackhole", cidr])
        commands.capture(["ip", "route", "add", "blackhole", cidr], error=RunError)
    _install_chain(EGRESS_CHAIN, parent="FORWARD", rules=egress_rules(s))
    _install_chain(INGRESS_CHAIN, parent="INPUT", rules=ingress_rules(s))


def egress_rules(s: LocalSettings) -> list[list[str]]:
    """WPC-EGRESS: pod traffic leaves only through the pod bridge."""
    return [
        [
            "-s",
            s.pod_cidr,
            "!",
            "-o",
            s.bridge,
            "-m",
            "comment",
            "--comment",
            "wpc: pod traffic never leaves the machine",
            "-j",
            "DROP",
        ]
    ]


def ingress_rules(s: LocalSettings) -> list[list[str]]:
    """WPC-INGRESS: the apiserver and kubelet ports admit loopback and pods only.

    Interfaces, not source addresses, decide: the machine reaching its own node
    IP arrives on `lo`, and a pod (directly, or through the `kubernetes` Service
    DNAT) arrives on the pod bridge with a pod-CIDR source. Anything else, from
    eth0 or docker0, is dropped before it reaches a TLS handshake.
    """
    rules: list[list[str]] = []
    for port in (s.api_port, s.kubelet_port):
        match = ["-p", "tcp", "--dport", str(port)]
        rules += [
            [*match, "-i", "lo", "-j", "RETURN"],
            [*match, "-i", s.bridge, "-s", s.pod_cidr, "-j", "RETURN"],
            [
                *match,
                "-m",
                "comment",
                "--comment",
                "wpc: only this machine and its pods reach the cluster",
                "-j",
                "DROP",
            ],
        ]
    return rules


def _install_chain(chain: str, *, parent: str, rules: list[list[str]]) -> None:
    """(Re)create `chain` with `rules` and jump to it first thing from `parent`."""
    commands.attempt(["iptables", "-N", chain])
    commands.capture(["iptables", "-F", chain], error=RunError)
    for rule in rules:
        commands.capture(["iptables", "-A", chain, *rule], error=RunError)
    if commands.attempt(["iptables", "-C", parent, "-j", chain]).returncode != 0:
        commands.capture(["iptables", "-I", parent, "1", "-j", chain], error=RunError)


def bridge_links(bridge: str) -> list[str]:
    """The bridge itself and every interface enslaved to it, if any."""
    links = []
    if commands.attempt(["ip", "link", "show", bridge]).returncode == 0:
        out = commands.attempt(["ip", "-o", "link", "show", "master", bridge]).stdout
        links = [
            line.split(":")[1].strip().split("@")[0]
            for line in out.splitlines()
            if line
        ]
        links.append(bridge)
    return links


def delete_links(bridge: str) -> None:
    """Delete the pod bridge and its veths."""
    for link in bridge_links(bridge):
        commands.attempt(["ip", "link", "delete", link])


def _owned(line: str) -> bool:
    words = line.replace(":", " ").split()
    return any(w.startswith(OWNED_CHAIN_PREFIXES) for w in words)


def owned_rules(tool: str = "iptables") -> list[str]:
    """Lines of `<tool>-save` that belong to chains we own (or jump to them)."""
    saved = commands.attempt([f"{tool}-save"])
    if saved.returncode != 0:
        return []
    return [line for line in saved.stdout.splitlines() if _owned(line)]


def remove_iptables(tool: str = "iptables") -> None:
    """Remove every KUBE-/CNI-/WPC- chain and every rule jumping to one, keeping the rest.

    The whole ruleset is saved, our lines filtered out, and restored in one
    transaction, so Docker's or anyone else's rules survive untouched.
    """
    saved = commands.attempt([f"{tool}-save"])
    if saved.returncode != 0 or not owned_rules(tool):
        return
    kept = (
        "\n".join(line for line in saved.stdout.splitlines() if not _owned(line)) + "\n"
    )
    restored = commands.attempt([f"{tool}-restore"], stdin=kept)
    if restored.returncode != 0:
        logger.warning("%s-restore failed: %s", tool, restored.stderr.strip())


def blackhole_routes(s: LocalSettings) -> list[str]:
    """Our blackhole routes that are still installed."""
    out = commands.attempt(["ip", "route", "show", "type", "blackhole"]).stdout
    return [
        line.strip()
        for line in out.splitlines()
        if line.split()[1:2] and line.split()[1] in (s.service_cidr, s.pod_cidr)
    ]


def remove_routes(s: LocalSettings) -> None:
    """Remove the blackhole routes."""
    for cidr in (s.service_cidr, s.pod_cidr):
        commands.attempt(["ip", "route", "del", "blackhole", cidr])


def kubepods_cgroups() -> list[Path]:
    """cgroup directories the kubelet created (v1 hierarchies and the unified one)."""
    found: list[Path] = []
    if not CGROUP_ROOT.exists():
        return found
    for hierarchy in CGROUP_ROOT.iterdir():
        for name in ("kubepods", "kubepods.slice"):
            top = hierarchy / name
            if top.is_dir():
                found.append(top)
    return found


def cgroup_pids(tops: list[Path]) -> list[int]:
    """Pids still inside the kubepods cgroups (container processes)."""
    pids: set[int] = set()
    for top in tops:
        for procs in top.rglob("cgroup.procs"):
            try:
                pids.update(int(p) for p in procs.read_text().split())
            except OSError:
                continue  # intentionally ignore: the cgroup went away while we looked
    return sorted(pids)


def remove_cgroups(tops: list[Path]) -> None:
    """rmdir the kubepods hierarchies, leaves first (cgroupfs only allows empty dirs)."""
    for top in tops:
        dirs = sorted(
            (p for p in top.rglob("*") if p.is_dir()),
            key=lambda p: len(p.parts),
            reverse=True,
        )
        for d in [*dirs, top]:
            try:
                d.rmdir()
            except OSError:
                continue  # reported by leftovers() if it stays
