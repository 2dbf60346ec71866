"""The egress guard is consulted first for pod traffic leaving the pod network.

We test these aspects on the running local cluster:
1. after kube-proxy and the CNI plugins have written their rules (the filter
   table's FORWARD starts with theirs, `CNI-FORWARD` accepting every pod),
   `WPC-EGRESS` is still the first thing mangle's FORWARD jumps to, as
   `clusters status` checks;
2. a pod cannot reach a server outside the pod network (in a network namespace
   made on this machine, see `_netns`): its connection times out and the
   guard's DROP counter grows;
3. the same pod reaches the same server once the guard's jump is removed (and
   put back at once): the proof of 2 can fail, and it is the guard, not
   routing, that stops the traffic.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from clusters.local import host
from clusters.local.settings import LocalSettings
from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.clusters import _netns
from tests.clusters.conftest import CLUSTER
from tests.clusters.conftest import LABELS

pytestmark = pytest.mark.cluster

PORT = 18080


def _iptables(*args: str) -> str:
    proc = subprocess.run(
        ["iptables", *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"iptables {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def _dropped() -> int:
    """Packets the guard's DROP rule has counted."""
    out = _iptables("-t", host.GUARD_TABLE, "-L", host.EGRESS_CHAIN, "-v", "-x", "-n")
    return sum(int(line.split()[0]) for line in out.splitlines() if "DROP" in line)


@pytest.fixture
def outside_server() -> Iterator[str]:
    """An HTTP server in a namespace outside the pod network; yields its URL."""
    with _netns.outside_namespace() as ns:
        server = subprocess.Popen(
            [
                "ip", "netns", "exec", ns, sys.executable, "-m", "http.server",
                "--bind", _netns.FAR_SIDE, str(PORT),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://{_netns.FAR_SIDE}:{PORT}/"
        try:
            until(
                lambda: _host_get(url),
                timeout=30,
                interval=0.2,
                describe=f"the namespace's server at {url} to answer the host",
            )
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


def _host_get(url: str) -> int | NotYet:
    """The host itself reaches the namespace (OUTPUT, not FORWARD: no guard)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return int(resp.status)
    except OSError as exc:
        return NotYet(str(exc))


def _get_from_pod(core: Any, namespace: str, toolbox: str, url: str) -> tuple[str, str]:
    """Run `probe get URL` in a pod; return its phase and logs."""
    name = f"egress-{uuid.uuid4().hex[:6]}"
    core.create_namespaced_pod(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": LABELS},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "c",
                        "image": toolbox,
                        "imagePullPolicy": "Never",
                        "command": ["/bin/probe", "get", url],
                    }
                ],
            },
        },
    )

    def finished() -> str | NotYet:
        phase = core.read_namespaced_pod(name, namespace).status.phase
        return phase if phase in ("Succeeded", "Failed") else NotYet(f"phase {phase}")

    phase = until(
        finished, timeout=90, interval=0.2, describe=f"pod {namespace}/{name} to end"
    )
    return phase, str(core.read_namespaced_pod_log(name, namespace))


def test_the_egress_guard_is_first_after_kube_proxy_and_cni(local):
    settings = LocalSettings.from_env(CLUSTER)
    forward = _iptables("-S", "FORWARD")
    assert "-j CNI-FORWARD" in forward, f"the CNI plugins' rules are absent: {forward}"
    assert host.guard_problems(settings) == []
    assert local.status(CLUSTER).problems == ()


def test_pod_traffic_to_another_network_is_dropped_by_the_guard(
    local, core, namespace, toolbox, outside_server
):
    before = _dropped()
    phase, logs = _get_from_pod(core, namespace, toolbox, outside_server)
    assert phase == "Failed", f"the pod reached {outside_server}: {logs}"
    assert _dropped() > before, "something other than the guard stopped the traffic"
    # the control: without the guard's jump the same request gets through
    _iptables("-t", host.GUARD_TABLE, "-D", "FORWARD", "-j", host.EGRESS_CHAIN)
    try:
        phase, logs = _get_from_pod(core, namespace, toolbox, outside_server)
    finally:
        _iptables("-t", host.GUARD_TABLE, "-I", "FORWARD", "1", "-j", host.EGRESS_CHAIN)
    assert (phase, logs.split(" ")[0]) == ("Succeeded", "200"), logs
    assert host.guard_problems(LocalSettings.from_env(CLUSTER)) == []
