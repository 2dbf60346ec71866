"""We test these aspects of implementation profiles:

- the bundled profiles load and claim the layout features of their layouts;
- schema errors (unknown keys, missing keys) name the key;
- unknown feature names, unknown placeholders and `:latest` images are errors naming the key;
- commands render with the run's values; a missing value is an error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance import implementations
from conformance import spec
from conformance.errors import DataError
from tests.conformance.conftest import PROFILE

KNOWN = frozenset({"LEGACY_LAYOUT", "INITLESS_LAYOUT", "STATUS_FINALIZER"})


def write_profile(tmp_path: Path, **changes: object) -> Path:
    data = yaml.safe_load(PROFILE.read_text())
    for dotted, value in changes.items():
        *parents, leaf = dotted.split("__")
        target = data
        for key in parents:
            target = target[key]
        if value is None:
            del target[leaf]
        else:
            target[leaf] = value
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    "name", ["reference", "argo-workflows", "argo-workflows-images"]
)
def test_bundled_profiles_load(name):
    # The bundled profiles claim features of the shipped spec, not of the fixture.
    real = frozenset(f.name for f in spec.load().features)
    profile = implementations.load(name, known_features=real)
    assert profile.layouts == ("legacy", "initless")
    assert {"LEGACY_LAYOUT", "INITLESS_LAYOUT"} <= profile.features
    assert (
        profile.instance("legacy").instance_id
        != profile.instance("initless").instance_id
    )


def test_unknown_key_is_named(tmp_path):
    path = write_profile(tmp_path, commands__instal=[["true"]])
    with pytest.raises(
        DataError,
        match=r"commands: Additional properties are not allowed \('instal' was unexpected\)",
    ):
        implementations.load(str(path), known_features=KNOWN)


def test_missing_key_is_named(tmp_path):
    path = write_profile(tmp_path, commands__restart=None)
    with pytest.raises(DataError, match="commands: 'restart' is a required property"):
        implementations.load(str(path), known_features=KNOWN)


def test_unknown_feature_is_named(tmp_path):
    path = write_profile(tmp_path, features=["STATUS_FINALIZER", "TIME_TRAVEL"])
    with pytest.raises(
        DataError, match=r"features\[1\]: unknown feature 'TIME_TRAVEL'"
    ):
        implementations.load(str(path), known_features=KNOWN)


def test_unknown_placeholder_is_named(tmp_path):
    path = write_profile(tmp_path, commands__restart=[["kubectl", "{kubeconfg}"]])
    with pytest.raises(
        DataError,
        match=r"commands.restart\[0\]\[1\]: unknown placeholder \{kubeconfg\}",
    ):
        implementations.load(str(path), known_features=KNOWN)


def test_prepare_may_not_use_instance_placeholders(tmp_path):
    path = write_profile(tmp_path, commands__prepare=[["echo", "{instance_id}"]])
    with pytest.raises(
        DataError,
        match=r"commands.prepare\[0\]\[1\]: unknown placeholder \{instance_id\}",
    ):
        implementations.load(str(path), known_features=KNOWN)


def test_latest_images_are_refused(tmp_path):
    path = write_profile(tmp_path, images={"executor": "example.test/executor:latest"})
    with pytest.raises(DataError, match=r"images\.executor: .* never latest"):
        implementations.load(str(path), known_features=KNOWN)


def test_unknown_implementation_lists_the_bundled_ones():
    with pytest.raises(DataError, match=r"not one of the bundled profiles .*reference"):
        implementations.load("no-such-controller")


def test_commands_render_with_literal_braces():
    command = ("kubectl", "patch", '{{"data":{{"initlessPod":"enabled: {initless}"}}}}')
    assert (
        implementations.render(command, {"initless": "true"})[-1]
        == '{"data":{"initlessPod":"enabled: true"}}'
    )


def test_rendering_without_a_value_is_an_error():
    with pytest.raises(DataError, match=r"no value for placeholder \{kubeconfig\}"):
        implementations.render(("kubectl", "--kubeconfig", "{kubeconfig}"), {})


def test_artifact_repository_secrets_are_loaded_as_namespace_name_pairs(tmp_path):
    secrets = [{"namespace": "argo", "name": "s3-creds"}]
    path = write_profile(tmp_path, artifactRepository={"secrets": secrets})
    profile = implementations.load(str(path), known_features=KNOWN)
    assert profile.repository_secrets == (("argo", "s3-creds"),)
    without = implementations.load(str(write_profile(tmp_path)), known_features=KNOWN)
    assert without.repository_secrets == ()


def test_an_artifact_repository_secret_without_a_namespace_is_named(tmp_path):
    path = write_profile(tmp_path, artifactRepository={"secrets": [{"name": "x"}]})
    with pytest.raises(
        DataError, match=r"artifactRepository.*'namespace' is a required"
    ):
        implementations.load(str(path), known_features=KNOWN)
