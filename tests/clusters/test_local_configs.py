"""The local provider's rendered configs, PKI and evidence-carrying errors.

We test these aspects: containerd runs on its own socket/root with
restrict_oom_score_adj and an explicit shim; the kubelet tolerates cgroup v1
and never garbage-collects images; CoreDNS forwards nothing; certificates chain
to their CAs with the SANs pods use; a component that exits or times out names
itself, its command, its log tail and log path.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from cryptography import x509

from clusters.errors import ComponentStartError
from clusters.local import addons
from clusters.local import configs
from clusters.local import pki
from clusters.local.settings import LocalSettings
from clusters.machine import processes
from plumbing.gobuilding import BuildSettings
from plumbing.waiting import NotYet


@pytest.fixture
def settings(tmp_path):
    return LocalSettings(
        name="t",
        state_root=tmp_path,
        build=BuildSettings(tmp_path / "cache"),
        node_ip="192.0.2.9",
    )


def test_containerd_config_has_the_host_quirks(settings):
    text = configs.containerd_config(
        settings, runc=Path("/b/runc"), shim=Path("/b/shim"), cni_bin=Path("/c")
    )
    conf = tomllib.loads(text)
    runtime = conf["plugins"]["io.containerd.cri.v1.runtime"]
    assert runtime["restrict_oom_score_adj"] is True
    assert runtime["containerd"]["runtimes"]["runc"]["runtime_path"] == "/b/shim"
    assert (
        runtime["containerd"]["runtimes"]["runc"]["options"]["BinaryName"] == "/b/runc"
    )
    assert conf["grpc"]["address"].startswith(str(settings.state_dir))
    assert conf["root"].startswith(str(settings.state_dir))
    assert conf["plugins"]["io.containerd.cri.v1.images"]["pinned_images"][
        "sandbox"
    ] == ("registry.k8s.io/pause:3.10.2")


def test_kubelet_config_tolerates_cgroup_v1_and_keeps_images(settings):
    conf = yaml.safe_load(configs.kubelet_config(settings))
    assert conf["failCgroupV1"] is False
    assert conf["imageGCHighThresholdPercent"] == 100
    assert conf["clusterDNS"] == ["10.96.0.10"]
    assert conf["containerRuntimeEndpoint"] == f"unix://{settings.containerd_socket}"


def test_coredns_forwards_nothing(settings):
    assert "forward" not in addons.COREFILE
    service = addons.coredns_manifests(settings)[-1]
    assert service["spec"]["clusterIP"] == settings.dns_service_ip
    images = [
        c["image"]
        for m in addons.coredns_manifests(settings)
        if m["kind"] == "Deployment"
        for c in m["spec"]["template"]["spec"]["containers"]
    ]
    assert images == [addons.COREDNS_IMAGE]
    assert not images[0].endswith(":latest")


def test_the_pod_subnet_avoids_docker0_and_the_node_network(settings):
    import ipaddress

    pods = ipaddress.ip_network(settings.pod_cidr)
    services = ipaddress.ip_network(settings.service_cidr)
    for other in ("172.17.0.0/16", "192.0.2.0/24"):
        assert not pods.overlaps(ipaddress.ip_network(other))
        assert not services.overlaps(ipaddress.ip_network(other))


def test_pki_chains_and_names(settings):
    pki.make_all(
        directory=settings.pki_dir,
        node_name=settings.node_name,
        server=settings.server,
        sans=settings.sans(),
    )
    serving = x509.load_pem_x509_certificate(
        (settings.pki_dir / "serving-kube-apiserver.crt").read_bytes()
    )
    ca = x509.load_pem_x509_certificate(
        (settings.pki_dir / "server-ca.crt").read_bytes()
    )
    serving.verify_directly_issued_by(ca)
    sans = serving.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "kubernetes.default.svc" in sans.get_values_for_type(x509.DNSName)
    assert {str(ip) for ip in sans.get_values_for_type(x509.IPAddress)} >= {
        "10.96.0.1",
        "192.0.2.9",
    }
    kubelet = x509.load_pem_x509_certificate(
        (settings.pki_dir / "client-kubelet.crt").read_bytes()
    )
    assert (
        kubelet.subject.rfc4514_string()
        == "O=system:nodes,CN=system:node:t-control-plane"
    )
    kc = yaml.safe_load((settings.pki_dir / "admin.kubeconfig").read_text())
    assert kc["clusters"][0]["cluster"]["server"] == "https://192.0.2.9:6443"


def test_a_component_that_exits_names_itself_its_command_and_log(settings):
    comp = processes.Component(
        name="broken",
        command=(sys.executable, "-c", "print('boom'); raise SystemExit(3)"),
        probe=lambda: NotYet("never"),
        timeout=10,
    )
    started = processes.start(comp, log_dir=settings.log_dir, run_dir=settings.run_dir)
    with pytest.raises(ComponentStartError) as err:
        processes.wait_healthy(started)
    text = str(err.value)
    assert "broken failed to start: the process exited with code 3" in text
    assert "boom" in text
    assert str(settings.log_dir / "broken.log") in text
    assert sys.executable in text


def test_a_failed_command_is_a_cluster_error_with_its_evidence(tmp_path):
    from clusters.errors import ClusterError
    from clusters.errors import RunError
    from plumbing import commands

    log = tmp_path / "x.log"
    with pytest.raises(ClusterError) as err:
        commands.run(
            [sys.executable, "-c", "import sys; print('last words'); sys.exit(4)"],
            log_path=log,
            error=RunError,
        )
    assert isinstance(err.value, RunError)
    assert "exit code 4" in str(err.value)
    assert "last words" in str(err.value)
    assert str(log) in str(err.value)


def test_containerd_reads_mirrors_from_its_own_hosts_dir(settings):
    text = configs.containerd_config(
        settings, runc=Path("/b/runc"), shim=Path("/b/shim"), cni_bin=Path("/c")
    )
    registry = tomllib.loads(text)["plugins"]["io.containerd.cri.v1.images"]["registry"]
    assert registry == {"config_path": str(settings.registry_hosts_dir)}
    assert settings.registry_hosts_dir.is_relative_to(settings.state_dir)


def test_a_mirror_hosts_toml_names_the_mirror_and_its_credentials():
    text = configs.mirror_hosts_toml(
        "https://wpc.local", "http://127.0.0.1:5000", "Basic dTpw"
    )
    assert tomllib.loads(text) == {
        "server": "https://wpc.local",
        "host": {
            "http://127.0.0.1:5000": {
                "capabilities": ["pull", "resolve"],
                "header": {"Authorization": "Basic dTpw"},
            }
        },
    }
    plain = tomllib.loads(configs.mirror_hosts_toml("https://a.test", "http://b.test"))
    assert "header" not in plain["host"]["http://b.test"]
