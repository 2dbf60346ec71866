"""Host preparation and cleanup for the local cluster: kernel, network, mounts, cgroups.

Network safety is part of preparation, not an afterthought: while the cluster
runs, blackhole routes catch any packet for a service or pod address that
nothing translated, and the WPC-EGRESS chain drops pod traffic that would
leave through anything but the pod bridge. No cluster traffic leaves the
machine. In the other direction, the WPC-INGRESS chain drops connections to
the apiserver and kubelet ports unless they come from this machine itself
(loopback) or from a pod (the pod bridge): both listen on the node IP, which
the machine's network could otherwise reach.

Both guards live in the mangle table, not in filter. kube-proxy and the CNI
firewall plugin insert their own chains at the top of filter's FORWARD and
INPUT after the cluster starts (`CNI-FORWARD` then ACCEPTs every registered
pod's traffic), so a guard in filter ends up behind rules that accept what it
should drop. Netfilter runs mangle's FORWARD and INPUT hooks before filter's,
and neither kube-proxy nor the CNI plugins touch mangle's FORWARD or INPUT:
a guard jumped to first from there is consulted before anything else.
`guard_problems` checks that this still holds (at `up` and in `status`).
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
GUARD_TABLE = "mangle"
"""The table both guards live in: its hooks run before filter's, which others write."""
GUARDS = {EGRESS_CHAIN: "FORWARD", INGRESS_CHAIN: "INPUT"}
"""Each guard chain and the built-in chain that must jump to it first."""


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
    install_guards(s)


def install_guards(s: LocalSettings) -> None:
    """WPC-EGRESS and WPC-INGRESS, each jumped to first from its mangle chain."""
    _install_chain(EGRESS_CHAIN, parent=GUARDS[EGRESS_CHAIN], rules=egress_rules(s))
    _install_chain(INGRESS_CHAIN, parent=GUARDS[INGRESS_CHAIN], rules=ingress_rules(s))


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
    """(Re)create `chain` with `rules` in the guard table, jumped to first from `parent`."""
    ipt = ["iptables", "-t", GUARD_TABLE]
    commands.attempt([*ipt, "-N", chain])
    commands.capture([*ipt, "-F", chain], error=RunError)
    for rule in rules:
        commands.capture([*ipt, "-A", chain, *rule], error=RunError)
    while commands.attempt([*ipt, "-D", parent, "-j", chain]).returncode == 0:
        pass  # a jump left lower down by an earlier run: the only one is first
    commands.capture([*ipt, "-I", parent, "1", "-j", chain], error=RunError)


def guard_problems(s: LocalSettings) -> list[str]:
    """What is wrong with the guards now: empty when each is in place and first.

    Read from `iptables -t mangle -S`, so it sees what the kernel has, after
    kube-proxy and the CNI plugins have written their rules.
    """
    saved = commands.attempt(["iptables", "-t", GUARD_TABLE, "-S"])
    if saved.returncode != 0:
        return [f"`iptables -t {GUARD_TABLE} -S` failed: {saved.stderr.strip()}"]
    return guard_problems_in(saved.stdout.splitlines(), s)


def guard_problems_in(lines: list[str], s: LocalSettings) -> list[str]:
    """`guard_problems` over the lines of `iptables -t mangle -S` (pure, for tests)."""
    problems = []
    expected = {EGRESS_CHAIN: egress_rules(s), INGRESS_CHAIN: ingress_rules(s)}
    for chain, parent in GUARDS.items():
        appended = [line for line in lines if line.startswith(f"-A {parent} ")]
        if not appended or appended[0] != f"-A {parent} -j {chain}":
            first = appended[0] if appended else "nothing"
            problems.append(
                f"{GUARD_TABLE} {parent} does not jump to {chain} first "
                f"(its first rule: {first})"
            )
        rules = [line for line in lines if line.startswith(f"-A {chain} ")]
        if len(rules) != len(expected[chain]) or not rules[-1].endswith("-j DROP"):
            problems.append(
                f"{GUARD_TABLE} {chain} has {len(rules)} rule(s), "
                f"expected {len(expected[chain])} ending in DROP: {rules}"
            )
    return problems


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
