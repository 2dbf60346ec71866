"""The kind provider's config, command lines and DNS probe, and the one-cluster holder.

We test these aspects: the config turns kind's CNI off, adds N workers to one
control plane, and patches every kubelet with failCgroupV1: false and the cgroupfs
driver only on cgroup v1 hosts; create and load command lines name our image and write the
kubeconfig into the provider's directory, never ~/.kube; the DNS probe's
query and reply parser agree; the holder refuses a second provider's `up`
while the first's cluster runs, naming it, and trusts a stale file no longer.
"""

from __future__ import annotations

import socket
import struct
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from clusters import providers
from clusters.errors import ProviderError
from clusters.kind import KindProvider
from clusters.kind import KindSettings
from clusters.kind import configs
from clusters.kind import probes
from clusters.machine import holding


def test_the_config_has_one_control_plane_n_workers_and_no_default_cni():
    cfg = configs.config(cgroup_v1=False, workers=2)
    assert [n["role"] for n in cfg["nodes"]] == ["control-plane", "worker", "worker"]
    assert cfg["networking"] == {"disableDefaultCNI": True}
    assert [yaml.safe_load(p)["kind"] for p in cfg["kubeadmConfigPatches"]] == [
        "ClusterConfiguration"
    ]


GRACE = {
    "kind": "ClusterConfiguration",
    "controllerManager": {
        "extraArgs": [{"name": "node-monitor-grace-period", "value": "20s"}]
    },
}


def test_cgroup_v1_hosts_patch_every_kubelet():
    cfg = yaml.safe_load(configs.render(cgroup_v1=True, workers=1))
    assert [yaml.safe_load(p) for p in cfg["kubeadmConfigPatches"]] == [
        GRACE,
        {
            "kind": "KubeletConfiguration",
            "failCgroupV1": False,
            "cgroupDriver": "cgroupfs",
        },
    ]


def test_a_silent_node_is_not_ready_after_20_seconds_not_50():
    cfg = configs.config(cgroup_v1=False, workers=2)
    assert [yaml.safe_load(p) for p in cfg["kubeadmConfigPatches"]] == [GRACE]


def test_command_lines_name_our_image_and_kubeconfig(tmp_path):
    kind = KindProvider(KindSettings(work_dir=tmp_path))
    assert kind.create_command("x", Path("/c.yaml"), "wpc.local/kind-node:v1-k") == [
        "kind",
        "create",
        "cluster",
        "--name",
        "x",
        "--config",
        "/c.yaml",
        "--image",
        "wpc.local/kind-node:v1-k",
        "--kubeconfig",
        str(tmp_path / "x" / "kubeconfig"),
    ]
    assert kind.load_command("x", Path("/i.tar"), kind="/k") == [
        "/k",
        "load",
        "image-archive",
        "/i.tar",
        "--name",
        "x",
    ]


def test_workers_are_for_kind_only():
    with pytest.raises(ProviderError, match="--workers is for --provider kind"):
        providers.get("local", workers=2)


def _reply(addresses):
    question = probes.query("kubernetes.default.svc.cluster.local")[12:]
    header = struct.pack(">HHHHHH", probes.QUERY_ID, 0x8580, 1, len(addresses), 0, 0)
    answers = b"".join(
        b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 5, 4) + bytes(map(int, a.split(".")))
        for a in addresses
    )
    return header + question + answers


def test_the_dns_probe_parses_what_it_asked_for():
    dump = " ".join(f"{b:02x}" for b in _reply(["10.96.0.1"]))
    answer = probes.parse(dump)
    assert (answer.rcode, answer.answers, answer.addresses) == (0, 1, ("10.96.0.1",))
    with pytest.raises(ValueError, match="at least 12 bytes"):
        probes.parse("")
    assert probes.command("10.96.0.10")[:2] == ["bash", "-c"]
    assert "/dev/udp/10.96.0.10/53" in probes.command("10.96.0.10")[2]
    assert probes.stdin_text(probes.query("a.b")).encode("ascii") == probes.query("a.b")
    with pytest.raises(ValueError, match="0x7f"):
        probes.stdin_text(b"\x80")


def test_the_dns_probe_script_carries_a_query_and_its_reply_over_real_udp():
    """bash, cat, dd and od as the node runs them, against a UDP server on loopback.

    The probe's first form (a printf-escaped packet, `head -c` under `timeout`)
    never showed a reply from a CoreDNS that answered; this exchange would have.
    """
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.settimeout(10)
    asked: list[bytes] = []

    def answer_once() -> None:
        packet, peer = server.recvfrom(512)
        asked.append(packet)
        server.sendto(_reply(["10.96.0.1"]), peer)

    thread = threading.Thread(target=answer_once)
    thread.start()
    query = probes.query("kubernetes.default.svc.cluster.local")
    done = subprocess.run(
        probes.command("127.0.0.1", port=server.getsockname()[1]),
        input=probes.stdin_text(query),
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    thread.join()
    server.close()
    assert asked == [query]
    assert probes.parse(done.stdout).addresses == ("10.96.0.1",), done.stderr


LOCAL = holding.Holder(provider="local", name="wpc")
KIND = holding.Holder(provider="kind", name="wpc-kind")


def test_up_refuses_while_another_providers_cluster_runs_and_names_it(tmp_path):
    path = tmp_path / "holder.json"
    holding.claim(path, LOCAL, running=lambda h: True, discover=list)
    with pytest.raises(
        ProviderError, match=r"local cluster 'wpc'.*--provider local --name wpc"
    ):
        holding.claim(path, KIND, running=lambda h: True, discover=list)
    holding.claim(path, LOCAL, running=lambda h: True, discover=list)  # up again: fine


def test_a_stale_holder_or_a_found_cluster_decides(tmp_path):
    path = tmp_path / "holder.json"
    holding.claim(path, LOCAL, running=lambda h: True, discover=list)
    holding.claim(path, KIND, running=lambda h: False, discover=list)  # local died
    assert holding.read(path).same(KIND)
    holding.release(path, LOCAL)  # not the holder: no effect
    assert holding.read(path).same(KIND)
    holding.release(path, KIND)
    assert holding.read(path) is None
    with pytest.raises(ProviderError, match="kind cluster 'wpc-kind'"):
        holding.claim(path, LOCAL, running=lambda h: True, discover=lambda: [KIND])
