"""The host settings Docker and kind touch, and the proof the local cluster survived them.

dockerd rewrites the host's iptables when it starts. When it has to turn on
`ip_forward` itself it also sets the FORWARD policy to DROP, and the local
cluster's bridged pod traffic (which br_netfilter sends through FORWARD) then
depends on rules nobody promised. So the setup records the policy before
dockerd starts, puts ACCEPT back if it changed, and, when a local cluster is
running, proves that one of its pods still reaches CoreDNS in another pod.
"""

from __future__ import annotations

import logging
from pathlib import Path

from clusters.errors import RunError
from clusters.errors import WaitTimeout
from plumbing import commands
from plumbing import mounts
from plumbing.waiting import NotYet
from plumbing.waiting import until

logger = logging.getLogger(__name__)

INOTIFY = {
    "fs.inotify.max_user_watches": 524288,
    "fs.inotify.max_user_instances": 512,
}
"""The limits kind's known-issues page asks for; only ever raised, never lowered."""

POD_TRAFFIC_TIMEOUT = 30.0
"""Seconds for a local pod to reach CoreDNS three times in a row after dockerd started."""


def raise_inotify_limits(proc_sys: Path = Path("/proc/sys")) -> dict[str, int]:
    """Raise the inotify limits to kind's values where they are lower; return what changed."""
    changed = {}
    for key, wanted in INOTIFY.items():
        path = proc_sys.joinpath(*key.split("."))
        if int(path.read_text()) < wanted:
            path.write_text(f"{wanted}\n")
            changed[key] = wanted
    return changed


def forward_policy() -> str:
    """The filter table's FORWARD policy (ACCEPT or DROP)."""
    for line in commands.capture(
        ["iptables", "-S", "FORWARD"], error=RunError
    ).splitlines():
        if line.startswith("-P FORWARD "):
            return line.split()[2]
    raise RunError(
        command=["iptables", "-S", "FORWARD"],
        returncode=0,
        output="no `-P FORWARD` line in the output",
    )


def restore_forward_policy(before: str) -> bool:
    """Put the FORWARD policy back to ACCEPT if it was ACCEPT before; True if it had changed."""
    now = forward_policy()
    if before == "ACCEPT" and now != "ACCEPT":
        logger.warning(
            "dockerd set the FORWARD policy to %s; restoring ACCEPT so the local "
            "cluster's pod traffic keeps flowing.",
            now,
        )
        commands.capture(["iptables", "-P", "FORWARD", "ACCEPT"], error=RunError)
        return True
    return False


def pod_namespaces(state_dir: Path) -> list[Path]:
    """Network namespaces of the local cluster's pods (nsfs mounts under its state dir)."""
    return sorted(Path(p) for p in mounts.mounts_below(state_dir, fstype="nsfs"))


def _address(netns: Path) -> str:
    out = commands.attempt(
        ["nsenter", f"--net={netns}", "ip", "-4", "-o", "addr", "show", "dev", "eth0"]
    ).stdout.split()
    return out[out.index("inet") + 1].split("/")[0] if "inet" in out else ""


def check_local_pod_traffic(*, kubectl: Path, kubeconfig: Path, state_dir: Path) -> str:
    """Prove a local pod reaches CoreDNS's ready port in another pod; return what was seen."""
    dns_ips = commands.capture(
        [
            str(kubectl),
            "--kubeconfig",
            str(kubeconfig),
            "get",
            "pods",
            "-n",
            "kube-system",
            "-l",
            "k8s-app=kube-dns",
            "-o",
            "jsonpath={.items[*].status.podIP}",
        ],
        error=RunError,
    ).split()
    if not dns_ips:
        return "nothing to check: the local cluster has no CoreDNS pod IP"
    url = f"http://{dns_ips[0]}:8181/ready"
    probe = f"import urllib.request as u; print(u.urlopen({url!r}, timeout=2).status)"

    def reaches() -> str | NotYet:
        # Pods come and go on a shared cluster: pick a live client on every try.
        clients = [
            ns for ns in pod_namespaces(state_dir) if _address(ns) not in ("", *dns_ips)
        ]
        if not clients:
            return NotYet("no pod other than CoreDNS has a network namespace")
        done = commands.attempt(
            ["nsenter", f"--net={clients[0]}", "python3", "-c", probe], timeout=10
        )
        seen = (
            f"{url} from {clients[0].name}: {done.stdout.strip()}{done.stderr[-300:]}"
        )
        return seen if done.stdout.strip() == "200" else NotYet(seen)

    return until(
        reaches,
        timeout=POD_TRAFFIC_TIMEOUT,
        interval=1.0,
        consecutive=3,
        describe="a local pod to reach CoreDNS in another pod after dockerd started",
        error=WaitTimeout,
    )


def _docker_owned(line: str) -> bool:
    return "DOCKER" in line


def docker_rules() -> list[str]:
    """iptables-save lines of dockerd's chains (DOCKER, DOCKER-USER, DOCKER-ISOLATION-*)."""
    saved = commands.attempt(["iptables-save"])
    return [line for line in saved.stdout.splitlines() if _docker_owned(line)]


def remove_docker_rules() -> None:
    """Drop dockerd's chains and the rules jumping to them, in one restore; keep the rest."""
    saved = commands.attempt(["iptables-save"])
    if saved.returncode != 0 or not any(map(_docker_owned, saved.stdout.splitlines())):
        return
    kept = "\n".join(
        line for line in saved.stdout.splitlines() if not _docker_owned(line)
    )
    commands.capture(["iptables-restore"], stdin=kept + "\n", error=RunError)
