"""The kind provider's host mode (issue 15): the running Docker engine and a given node image.

We test these aspects: WPC_KIND_DOCKER and WPC_KIND_NODE_IMAGE parse, with
flags before the environment before what the holder file recorded, and a bad
value is an error naming the variable or flag; in host mode `up` talks to
DOCKER_HOST (or the default socket) and never starts, stops or cleans the
engine, passes the given image to `kind create cluster --image` unbuilt, keeps
kindnetd, and records mode, engine and image in the marker and the holder
file; `up` waits for the CoreDNS restart after every node is Ready and
before asking DNS; `down` deletes only the kind cluster; `docker-setup` and `docker-down`
refuse; the pinned kindest/node references are digest-pinned and are the ones
the CI workflow uses.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusters import docker
from clusters import operating
from clusters import pins
from clusters import providers
from clusters.errors import ProviderError
from clusters.errors import RunError
from clusters.kind import KindProvider
from clusters.kind import KindSettings
from clusters.kind import configs
from clusters.kind import settings as kind_settings
from clusters.machine import holding
from plumbing import commands

ROOT = Path(__file__).resolve().parents[2]
IMAGE_136 = pins.KINDEST_NODE["1.36"]
IMAGE_135 = pins.KINDEST_NODE["1.35"]


def host_settings(tmp_path: Path, **environ: str) -> KindSettings:
    env = {
        "WPC_STATE_DIR": str(tmp_path),
        "WPC_KIND_DOCKER": "host",
        "PATH": "/usr/bin",
        **environ,
    }
    return KindSettings.from_env(environ=env)


def test_the_default_is_our_own_engine_and_our_own_image():
    s = KindSettings.from_env(environ={})
    assert (s.docker_mode, s.node_image, s.host_docker) == ("own", "", False)
    assert s.docker.host == "unix:///run/wpc-docker/docker.sock"


def test_host_mode_uses_docker_host_or_the_default_socket(tmp_path):
    assert host_settings(tmp_path).docker.host == "unix:///var/run/docker.sock"
    s = host_settings(tmp_path, DOCKER_HOST="tcp://10.0.0.2:2376")
    assert s.host_docker
    assert s.docker.env()["DOCKER_HOST"] == "tcp://10.0.0.2:2376"
    assert s.work_dir == tmp_path / "kind"


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"WPC_KIND_DOCKER": "mine"}, "WPC_KIND_DOCKER='mine'"),
        ({"WPC_KIND_NODE_IMAGE": "kindest/node v1.36"}, "WPC_KIND_NODE_IMAGE="),
        (
            {"WPC_KIND_NODE_IMAGE": "kindest/node:v1.36.4@sha256:abc"},
            "WPC_KIND_NODE_IMAGE=",
        ),
        ({"WPC_KIND_NODE_IMAGE": "kindest/node:"}, "WPC_KIND_NODE_IMAGE="),
        (
            {"WPC_KIND_DOCKER": "host", "DOCKER_HOST": "/var/run/docker.sock"},
            "DOCKER_HOST='/var/run/docker.sock' has no scheme",
        ),
    ],
)
def test_a_bad_value_names_the_variable(environ, named):
    with pytest.raises(ProviderError, match=named.replace("[", r"\[")) as info:
        KindSettings.from_env(environ=environ)
    if "WPC_KIND_DOCKER=" in named:
        assert "own (" in str(info.value)
        assert "host (" in str(info.value)


def test_a_bad_flag_names_the_flag_not_the_variable():
    with pytest.raises(ProviderError, match="--kind-docker='x'"):
        KindSettings.from_env(environ={}, docker_mode="x")
    with pytest.raises(ProviderError, match="--kind-node-image='no way'"):
        KindSettings.from_env(environ={}, node_image="no way")


def test_flags_before_environment_before_the_recorded_mode():
    recorded = {"docker": "host", "nodeImage": IMAGE_135}
    s = KindSettings.from_env(environ={}, recorded=recorded)
    assert (s.docker_mode, s.node_image) == ("host", IMAGE_135)
    env = {"WPC_KIND_DOCKER": "own", "WPC_KIND_NODE_IMAGE": IMAGE_136}
    s = KindSettings.from_env(environ=env, recorded=recorded)
    assert (s.docker_mode, s.node_image) == ("own", IMAGE_136)
    s = KindSettings.from_env(
        environ=env, recorded=recorded, docker_mode="host", node_image=""
    )
    assert (s.docker_mode, s.node_image) == ("host", "")


def test_the_pinned_kindest_node_images_are_digest_pinned_per_minor():
    for minor, ref in pins.KINDEST_NODE.items():
        assert kind_settings.check_node_image(ref) == ref
        assert "@sha256:" in ref
        assert len(ref.rsplit(":", 1)[1]) == 64
        assert kind_settings.node_image_minor(ref) == int(minor.split(".")[1])
    assert kind_settings.node_image_minor("wpc.local/kind-node:v1.36.4-abc") == 36
    assert (
        kind_settings.node_image_minor("localhost:5000/node@sha256:" + "0" * 64) is None
    )


def test_a_given_image_keeps_kindnetd_and_a_135_image_gets_the_image_volume_gate():
    ours = configs.config(cgroup_v1=True)
    assert ours["networking"] == {"disableDefaultCNI": True}
    assert "featureGates" not in ours
    kubelet = yaml.safe_load(ours["kubeadmConfigPatches"][-1])
    assert kubelet["cgroupDriver"] == "cgroupfs"
    given = configs.config(cgroup_v1=True, image_volume_gate=True, own_node_image=False)
    assert given["networking"] == {"disableDefaultCNI": False}
    assert given["featureGates"] == {"ImageVolume": True}
    kubelet = yaml.safe_load(given["kubeadmConfigPatches"][-1])
    assert kubelet == {"kind": "KubeletConfiguration", "failCgroupV1": False}


class FakeHost:
    """Every command the provider runs, answered like a host Docker with kind on it."""

    def __init__(self) -> None:
        self.seen: list[tuple[list[str], dict[str, str]]] = []
        self.clusters: set[str] = set()

    def _record(self, command: Sequence[str], env: Any) -> list[str]:
        argv = [str(a) for a in command]
        self.seen.append((argv, dict(env or {})))
        return argv

    def run(self, command: Sequence[str], *, env: Any = None, **_: Any) -> None:
        argv = self._record(command, env)
        if argv[1:3] == ["create", "cluster"]:
            self.clusters.add(argv[argv.index("--name") + 1])
        if argv[1:3] == ["delete", "cluster"]:
            self.clusters.discard(argv[argv.index("--name") + 1])

    def capture(self, command: Sequence[str], *, env: Any = None, **_: Any) -> str:
        argv = self._record(command, env)
        if argv[:2] == ["docker", "ps"]:
            label = argv[argv.index("--filter") + 1]
            if label.startswith("label=io.x-k8s.kind.cluster="):
                name = label.split("=", 2)[2]
                return f"{name}-control-plane\n" if name in self.clusters else ""
            return "\n".join(sorted(self.clusters))
        if argv[:3] == ["docker", "image", "inspect"]:
            return "sha256:" + "1" * 64 + "\n"
        return ""

    def attempt(
        self, command: Sequence[str], *, env: Any = None, **_: Any
    ) -> subprocess.CompletedProcess[str]:
        self._record(command, env)
        return subprocess.CompletedProcess(list(command), 0, "29.0.0\n", "")

    def lines(self) -> list[str]:
        return [" ".join(argv) for argv, _ in self.seen]


@pytest.fixture
def fake(monkeypatch, tmp_path):
    host = FakeHost()
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path / "cache"))  # no kubectl built yet
    for name in ("run", "capture", "attempt"):
        monkeypatch.setattr(commands, name, getattr(host, name))

    def never(*_: Any, **__: Any) -> None:
        raise AssertionError("host mode must not set up or tear down an engine")

    monkeypatch.setattr(docker, "setup", never)
    monkeypatch.setattr(docker, "teardown", never)
    monkeypatch.setattr(KindProvider, "_kind", lambda self: Path("/cache/kind"))
    built: list[list[str]] = []
    monkeypatch.setattr(
        "clusters.kind.building.build_all", lambda s, names: built.append(names)
    )
    # The readiness checks answer at once; each call is recorded among the commands.
    monkeypatch.setattr("clusters.kind.readiness.POLL", 0.0)
    for check in ("nodes_ready", "dns_answers"):
        monkeypatch.setattr(
            f"clusters.kind.readiness.{check}",
            lambda *a, _check=check: host._record([f"readiness.{_check}"], None)[0],
        )
    marked: list[dict[str, str]] = []
    monkeypatch.setattr(
        "clusters.kind.cli.apply_marker", lambda **kw: marked.append(kw["details"])
    )
    monkeypatch.setattr(
        "clusters.kind.nodeimage.ensure",
        lambda *a: pytest.fail("a given node image must not be built"),
    )
    monkeypatch.setattr("clusters.kind.host_is_cgroup_v1", lambda: False)
    host.built = built  # type: ignore[attr-defined]
    host.marked = marked  # type: ignore[attr-defined]
    return host


def test_up_in_host_mode_passes_the_given_image_and_starts_no_engine(fake, tmp_path):
    s = host_settings(tmp_path, WPC_KIND_NODE_IMAGE=IMAGE_135)
    KindProvider(s).create("wpc-kind")
    create = next(argv for argv, _ in fake.seen if argv[1:3] == ["create", "cluster"])
    assert create[create.index("--image") + 1] == IMAGE_135
    config = yaml.safe_load(Path(create[create.index("--config") + 1]).read_text())
    assert config["networking"] == {"disableDefaultCNI": False}
    assert config["featureGates"] == {"ImageVolume": True}
    # Every docker and kind command went to the host's engine, none to ours.
    hosts = {env.get("DOCKER_HOST") for argv, env in fake.seen if env}
    assert hosts == {"unix:///var/run/docker.sock"}
    assert not [
        line for line in fake.lines() if "dockerd" in line or "wpc-docker" in line
    ]
    assert fake.built == [["kubernetes"]]  # kubectl: the given image brings none here
    assert fake.marked == [
        {
            "docker": "host",
            "dockerHost": "unix:///var/run/docker.sock",
            "nodeImage": IMAGE_135,
            "nodeImageId": "sha256:" + "1" * 64,
            "nodeImageSource": "given",
        }
    ]


def test_the_coredns_restart_is_waited_for_after_the_nodes_and_kube_proxy_before_dns(
    fake, tmp_path
):
    s = replace(
        host_settings(tmp_path, WPC_KIND_NODE_IMAGE=IMAGE_136),
        coredns_restart_timeout=77,
    )
    KindProvider(s).create("wpc-kind")
    order = [
        line.split(" -n kube-system ")[-1]
        for line in fake.lines()
        if "readiness." in line or " rollout " in line
    ]
    assert order == [
        "readiness.nodes_ready",
        "rollout status --timeout=77s daemonset/kube-proxy",
        "rollout restart deployment/coredns",
        "rollout status --timeout=77s deployment/coredns",
        "readiness.dns_answers",
        "readiness.dns_answers",
        "readiness.dns_answers",
    ]


def test_host_mode_refuses_when_no_engine_answers(fake, tmp_path, monkeypatch):
    monkeypatch.setattr(docker, "answering", lambda s: False)
    s = host_settings(tmp_path, DOCKER_HOST="tcp://nowhere:2376")
    with pytest.raises(
        ProviderError, match=r"WPC_KIND_DOCKER=host.*tcp://nowhere:2376"
    ):
        KindProvider(s).create("wpc-kind")
    assert not [argv for argv, _ in fake.seen if argv[1:3] == ["create", "cluster"]]


def test_down_in_host_mode_deletes_only_the_kind_cluster(fake, tmp_path):
    s = host_settings(tmp_path, WPC_KIND_NODE_IMAGE=IMAGE_136)
    fake.clusters |= {"wpc-kind", "someone-elses"}
    KindProvider(s).delete("wpc-kind")
    assert "/cache/kind delete cluster --name wpc-kind" in fake.lines()
    assert fake.clusters == {"someone-elses"}
    assert not [line for line in fake.lines() if "network rm" in line]


def test_up_records_the_mode_and_image_in_the_holder_file(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("WPC_STATE_DIR", str(tmp_path))
    monkeypatch.delenv("WPC_KIND_DOCKER", raising=False)
    monkeypatch.delenv("WPC_KIND_NODE_IMAGE", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin")
    operating.up(
        provider="kind", name="wpc-kind", kind_docker="host", kind_node_image=IMAGE_136
    )
    record = json.loads((tmp_path / "holder.json").read_text())
    assert record["details"] == {
        "docker": "host",
        "dockerHost": "unix:///var/run/docker.sock",
        "nodeImage": IMAGE_136,
    }
    # A later verb in another process, without the flags, finds the same engine.
    again = providers.get("kind")
    assert isinstance(again, KindProvider)
    assert again.settings.host_docker
    assert again.settings.node_image == IMAGE_136
    operating.down(provider="kind", name="wpc-kind")
    assert holding.read(tmp_path / "holder.json") is None


def test_host_packages_are_ensured_on_our_own_engine_only(tmp_path, monkeypatch):
    # `make kind-test` alone on a fresh machine once failed building runc: no gcc.
    monkeypatch.delenv("WPC_KIND_NODE_IMAGE", raising=False)
    monkeypatch.setenv("WPC_KIND_DOCKER", "own")
    assert operating.needs_host_packages(providers.get("kind"))
    assert not operating.needs_host_packages(
        KindProvider(host_settings(tmp_path, WPC_KIND_NODE_IMAGE=IMAGE_136))
    )
    assert not operating.needs_host_packages(providers.get("existing"))


def test_docker_setup_and_down_refuse_an_engine_we_did_not_start(monkeypatch):
    monkeypatch.setenv("WPC_KIND_DOCKER", "host")
    for verb in (operating.docker_setup, operating.docker_down):
        with pytest.raises(ProviderError, match="neither starts nor stops"):
            verb()
    with pytest.raises(ProviderError, match="not WPC's"):
        docker.setup(docker.DockerSettings(external="unix:///var/run/docker.sock"))


def test_worker_faults_and_the_cluster_list_follow_the_selected_engine(
    fake, tmp_path, monkeypatch
):
    from clusters import kind
    from clusters.kind.workerfaults import KindWorkerFaults

    monkeypatch.setenv("WPC_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("WPC_KIND_DOCKER", "host")
    monkeypatch.setenv("DOCKER_HOST", "unix:///home/me/.docker/run/docker.sock")
    assert KindWorkerFaults().settings.host == "unix:///home/me/.docker/run/docker.sock"
    fake.clusters.add("wpc-kind")
    assert kind.running_clusters() == ["wpc-kind"]
    assert fake.seen[-1][1]["DOCKER_HOST"] == "unix:///home/me/.docker/run/docker.sock"


def test_node_image_prints_the_pinned_image_of_a_kubernetes_minor(capsys):
    """Issue 26: the CI action turns its `kubernetes` input into the pinned image."""
    from wpc import cli

    for minor, image in pins.KINDEST_NODE.items():
        assert cli.main(["cluster", "node-image", minor]) == 0
        assert capsys.readouterr().out == f"{image}\n"
    with pytest.raises(SystemExit) as exited:
        cli.main(["cluster", "node-image", "1.20"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: '1.20'" in err
    assert "'1.35', '1.36'" in err


def test_a_coredns_rollout_that_runs_out_says_where_the_pods_are(
    fake, tmp_path, monkeypatch
):
    # CI once ran out of this bound with no word of which pod was not Ready.
    answer = fake.capture

    def capture(command: Sequence[str], **kw: Any) -> str:
        argv = [str(a) for a in command]
        if argv[-2:] == ["--timeout=240s", "deployment/coredns"]:
            fake._record(command, None)
            raise RunError(command=argv, returncode=1, output="timed out waiting")
        return str(answer(command, **kw))

    def attempt(command: Sequence[str], **_: Any) -> subprocess.CompletedProcess[str]:
        fake._record(command, None)
        said = "coredns-x 0/1 Running wpc-kind-worker2\n"
        if "events" in command:
            said = "Warning Unhealthy pod/coredns-x Readiness probe failed\n"
        return subprocess.CompletedProcess(list(command), 0, said, "")

    monkeypatch.setattr(commands, "capture", capture)
    monkeypatch.setattr(commands, "attempt", attempt)
    s = host_settings(tmp_path, WPC_KIND_NODE_IMAGE=IMAGE_136)
    with pytest.raises(RunError) as failed:
        KindProvider(s).create("wpc-kind", retain=True)
    assert "coredns-x 0/1 Running wpc-kind-worker2" in failed.value.output
    assert "Readiness probe failed" in str(failed.value)
