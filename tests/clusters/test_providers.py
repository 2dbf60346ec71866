"""Providers: one protocol, kind/k3d configs and command lines, the existing provider.

We test these aspects: every provider satisfies ClusterProvider; the k3d
config carries the cgroup-v1 kubelet patch only on v1 hosts; no config pins
`latest`; k3d's command lines are what its CLI expects (kind's are in
test_kind_provider.py); CLI-driven providers
fail clearly when the CLI is missing; unknown providers are named in the error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clusters import providers
from clusters._cli_providers import host_is_cgroup_v1
from clusters.base import ClusterProvider
from clusters.errors import ProviderError
from clusters.images import archives
from clusters.k3d import K3dProvider
from clusters.k3d import config as k3d_config
from clusters.kind import config as kind_config


@pytest.mark.parametrize("name", providers.NAMES)
def test_every_provider_satisfies_the_protocol(name):
    assert isinstance(providers.get(name), ClusterProvider)


def test_an_unknown_provider_is_named():
    with pytest.raises(ProviderError, match="unknown provider 'minikube'"):
        providers.get("minikube")


def test_k3d_config_patches_the_kubelet_only_on_cgroup_v1():
    args = [
        a["arg"]
        for a in k3d_config(cluster="c", cgroup_v1=True)["options"]["k3s"]["extraArgs"]
    ]
    assert "--kubelet-arg=fail-cgroupv1=false" in args
    args = [
        a["arg"]
        for a in k3d_config(cluster="c", cgroup_v1=False)["options"]["k3s"]["extraArgs"]
    ]
    assert "--kubelet-arg=fail-cgroupv1=false" not in args


def test_cli_command_lines(tmp_path):
    k3d = K3dProvider(tmp_path)
    cfg, tar = Path("/c.yaml"), Path("/i.tar")
    assert k3d.create_command("x", cfg) == [
        "k3d",
        "cluster",
        "create",
        "x",
        "--config",
        "/c.yaml",
        "--wait",
    ]
    assert k3d.load_command("x", tar) == [
        "k3d",
        "image",
        "import",
        "/i.tar",
        "--cluster",
        "x",
    ]


def test_no_image_is_pinned_to_latest():
    assert not kind_config(cgroup_v1=True).get("image", "").endswith(":latest")
    assert not k3d_config(cluster="c", cgroup_v1=True)["image"].endswith(":latest")


def test_cli_providers_say_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ProviderError, match="k3d is not on PATH"):
        K3dProvider(tmp_path).delete("x")


def test_cgroup_version_detection(tmp_path):
    assert host_is_cgroup_v1(tmp_path)
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    assert not host_is_cgroup_v1(tmp_path)


def test_the_existing_provider_refuses_to_load_images_into_other_clusters(tmp_path):
    kc = tmp_path / "kubeconfig"
    kc.write_text("apiVersion: v1\ncurrent-context: prod\n")
    archive = archives.build_image(
        context=_context(tmp_path), tag="wpc.local/t:1", output=tmp_path / "t.tar"
    )
    existing = providers.get("existing")
    assert existing.kubeconfig(str(kc)) == kc
    with pytest.raises(
        ProviderError, match=r"cannot load .*wpc\.local/t:1.*context 'prod'.*registry"
    ):
        existing.load_image(str(kc), tmp_path / "t.tar")
    assert archive
    with pytest.raises(ProviderError, match="is not a file"):
        existing.kubeconfig(str(tmp_path / "nope"))


def _context(tmp_path):
    context = tmp_path / "ctx"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM scratch\nCOPY f /f\n")
    (context / "f").write_text("x")
    return context


@pytest.mark.parametrize(
    ("context", "provider", "cluster"),
    [("kind-ci", "kind", "ci"), ("k3d-dev", "k3d", "dev")],
)
def test_the_existing_provider_loads_through_kind_or_k3d(
    tmp_path, monkeypatch, context, provider, cluster
):
    kc = tmp_path / "kubeconfig"
    kc.write_text(f"apiVersion: v1\ncurrent-context: {context}\n")
    seen = []

    class Fake:
        def load_image(self, name, archive):
            seen.append((name, archive))
            return "ref"

    real_get = providers.get
    monkeypatch.setattr(
        providers, "get", lambda name: Fake() if name == provider else real_get(name)
    )
    assert providers.get("existing").load_image(str(kc), tmp_path / "t.tar") == "ref"
    assert seen == [(cluster, tmp_path / "t.tar")]
