"""We test the push of image archives to a registry (clusters/images/registry.py) and the
existing provider's use of it, against a real registry on 127.0.0.1 (CNCF
Distribution, built here: tests/clusters/_registry.py):

- a registry is given as `[http://|https://]host[:port][/prefix]`, https by default;
  anything else is refused naming the source (the flag or the variable);
- an image's repository is its path without the registry host, so a node's
  containerd finds it through a mirror of that host;
- a push sends the config and layers, then the manifest; the registry then serves
  that manifest under the tag with the archive's digest, and every blob byte for
  byte; a second push sends no blob again;
- a prefix lands the image below it;
- `WPC_EXISTING_REGISTRY` makes the existing provider push instead of refusing,
  without needing a kind or k3d context; unset, the refusal names the variable;
- a docker-save archive, an unreachable registry and an unknown repository's
  manifest give errors that name the archive or the request.
"""

from __future__ import annotations

import hashlib
import json
import tarfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clusters import cli
from clusters.errors import ProviderError
from clusters.existing import ExistingProvider
from clusters.images import registry
from tests.clusters import _registry

pytestmark = pytest.mark.slow

TAG = "wpc.local/registry-proof/data:1"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[_registry.RunningRegistry]:
    with _registry.running(tmp_path_factory.mktemp("registry")) as running:
        yield running


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return _registry.data_archive(tmp_path, TAG)


def fetch(url: str, accept: str = "") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return bytes(response.read())


def sha256(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


@pytest.mark.parametrize(
    ("given", "base", "prefix"),
    [
        ("registry.example.com", "https://registry.example.com", ""),
        ("http://127.0.0.1:5000", "http://127.0.0.1:5000", ""),
        ("https://reg.test:8443/team/wpc/", "https://reg.test:8443", "team/wpc"),
    ],
)
def test_a_registry_is_host_port_and_prefix(given, base, prefix):
    assert registry.Registry.parse(given) == registry.Registry(base, prefix)


@pytest.mark.parametrize(
    "given",
    ["ftp://reg.test", "http://", "http://reg.test:99999", "http://u:p@reg.test"],
)
def test_a_malformed_registry_is_refused_naming_its_source(given):
    with pytest.raises(registry.RegistryError, match=f"^{registry.VARIABLE} "):
        registry.from_env({registry.VARIABLE: given})


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("wpc.local/wpc-tools:0.1.0", ("wpc-tools", "0.1.0")),
        ("localhost:5000/a/b:c", ("a/b", "c")),
        ("library/busybox:1", ("library/busybox", "1")),
    ],
)
def test_the_repository_is_the_path_without_the_registry_host(ref, expected):
    assert registry.split_reference(ref) == expected


def test_an_untagged_reference_is_refused():
    with pytest.raises(registry.RegistryError, match="has no tag"):
        registry.split_reference("localhost:5000/a")


def test_a_pushed_image_is_served_by_tag_and_digest(server, archive):
    target = registry.Registry.parse(server.url)
    pushed = registry.push(archive, target)
    assert pushed.reference == f"127.0.0.1:{server.port}/registry-proof/data:1"
    assert (pushed.sent, pushed.skipped) == (2, 0)
    api = f"{server.url}/v2/registry-proof/data"
    manifest = fetch(f"{api}/manifests/1", "application/vnd.oci.image.manifest.v1+json")
    assert sha256(manifest) == pushed.digest
    with tarfile.open(archive) as tar:
        index = json.loads(tar.extractfile("index.json").read())  # type: ignore[union-attr]
    assert pushed.digest == index["manifests"][0]["digest"]
    document = json.loads(manifest)
    for blob in [document["config"], *document["layers"]]:
        assert sha256(fetch(f"{api}/blobs/{blob['digest']}")) == blob["digest"]
    again = registry.push(archive, target)
    assert (again.digest, again.sent, again.skipped) == (pushed.digest, 0, 2)


def test_a_prefix_puts_the_image_below_it(server, archive):
    pushed = registry.push(archive, registry.Registry.parse(f"{server.url}/team/wpc"))
    assert pushed.reference == f"127.0.0.1:{server.port}/team/wpc/registry-proof/data:1"
    manifest = fetch(
        f"{server.url}/v2/team/wpc/registry-proof/data/manifests/1",
        "application/vnd.oci.image.manifest.v1+json",
    )
    assert sha256(manifest) == pushed.digest


def test_the_existing_provider_pushes_to_the_named_registry(
    server, archive, tmp_path, monkeypatch
):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: prod\n")
    provider = ExistingProvider()
    monkeypatch.delenv(registry.VARIABLE, raising=False)
    with pytest.raises(ProviderError, match=registry.VARIABLE):
        provider.load_image(str(kubeconfig), archive)
    monkeypatch.setenv(registry.VARIABLE, server.url)
    said = provider.load_image(str(kubeconfig), archive)
    assert said.startswith(
        f"pushed {TAG} as 127.0.0.1:{server.port}/registry-proof/data:1@sha256:"
    )


def test_a_docker_save_archive_is_refused_naming_it(server, tmp_path):
    bogus = tmp_path / "saved.tar"
    with tarfile.open(bogus, "w") as tar:
        manifest = tmp_path / "manifest.json"
        manifest.write_text("[]")
        tar.add(manifest, arcname="manifest.json")
    with pytest.raises(registry.RegistryError, match=f"{bogus}: no index.json"):
        registry.push(bogus, registry.Registry.parse(server.url))


def test_an_unreachable_registry_names_the_request(archive):
    with pytest.raises(
        registry.RegistryError, match=r"^HEAD http://127\.0\.0\.1:9/v2/"
    ):
        registry.push(archive, registry.Registry.parse("http://127.0.0.1:9"))


def test_load_image_pushes_with_the_registry_flag(server, archive, tmp_path, capsys):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: prod\n")
    argv = ["load-image", "--name", str(kubeconfig), str(archive)]
    assert cli.main([*argv, "--provider", "existing", "--registry", server.url]) == 0
    assert (
        f"as 127.0.0.1:{server.port}/registry-proof/data:1@" in capsys.readouterr().out
    )
    assert cli.main([*argv, "--provider", "kind", "--registry", server.url]) == 1
    assert "--registry is for --provider existing" in capsys.readouterr().err
