"""We test these aspects of implementation profiles:

- the bundled profiles load and claim the layout features of their layouts;
- schema errors (unknown keys, missing keys) name the key;
- unknown feature names, unknown placeholders and `:latest` images are errors naming the key;
- a placeholder is a plain `{name}`: a format spec or conversion in a command, the
  controller's namespace or pod selector is an error naming the key;
- a profile larger than PROFILE_LIMIT_BYTES, or not UTF-8, is an error naming the file;
- commands render with the run's values; a missing value is an error;
- the optional `setConfig` command: every bundled profile has one that renders,
  only it may use `{key}`, `{value}` and `{config_patch}`, and those are one
  line of JSON and a ConfigMap merge patch (null removes the field); a key that
  is not one top-level field name is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conformance import spec
from conformance.errors import DataError
from conformance.errors import HarnessError
from conformance.implementations import profiles
from reference_impl.controller import faults
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
    profile = profiles.load(name, known_features=real)
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
        profiles.load(str(path), known_features=KNOWN)


def test_missing_key_is_named(tmp_path):
    path = write_profile(tmp_path, commands__restart=None)
    with pytest.raises(DataError, match="commands: 'restart' is a required property"):
        profiles.load(str(path), known_features=KNOWN)


def test_unknown_feature_is_named(tmp_path):
    path = write_profile(tmp_path, features=["STATUS_FINALIZER", "TIME_TRAVEL"])
    with pytest.raises(
        DataError, match=r"features\[1\]: unknown feature 'TIME_TRAVEL'"
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_unknown_placeholder_is_named(tmp_path):
    path = write_profile(tmp_path, commands__restart=[["kubectl", "{kubeconfg}"]])
    with pytest.raises(
        DataError,
        match=r"commands.restart\[0\]\[1\]: unknown placeholder \{kubeconfg\}",
    ):
        profiles.load(str(path), known_features=KNOWN)


@pytest.mark.parametrize(
    ("key", "value", "where"),
    [
        (
            "commands__restart",
            [["kubectl", "-n", "{namespace:>99999999999999}"]],
            r"commands.restart\[0\]\[2\]",
        ),
        (
            "commands__restart",
            [["echo", "{namespace!r}"]],
            r"commands.restart\[0\]\[1\]",
        ),
        ("controller__namespace", "{instance_id:>9999999999}", r"controller.namespace"),
        ("controller__podSelector", "app={layout!s}", r"controller.podSelector"),
    ],
)
def test_a_format_spec_or_conversion_is_refused(tmp_path, key, value, where):
    # Before: `{namespace:>99999999999999}` passed and raised MemoryError when rendered.
    path = write_profile(tmp_path, **{key: value})
    with pytest.raises(
        DataError,
        match=rf"{where}: \{{\w+\}} in .*: no format spec or conversion allowed",
    ):
        profiles.load(str(path), known_features=KNOWN)


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (
            lambda size: b"#" * (profiles.PROFILE_LIMIT_BYTES - size + 1),
            "is larger than the limit of 1 MiB$",
        ),
        (lambda size: "# café\n".encode("latin-1"), "is not UTF-8 text: byte 0xe9"),
    ],
)
def test_a_profile_too_large_or_not_utf8_is_refused_naming_the_file(
    tmp_path, spoil, message
):
    path = write_profile(tmp_path)
    path.write_bytes(path.read_bytes() + spoil(path.stat().st_size))
    with pytest.raises(
        DataError, match=rf"^{path}: the implementation profile {message}"
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_prepare_may_not_use_instance_placeholders(tmp_path):
    path = write_profile(tmp_path, commands__prepare=[["echo", "{instance_id}"]])
    with pytest.raises(
        DataError,
        match=r"commands.prepare\[0\]\[1\]: unknown placeholder \{instance_id\}",
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_latest_images_are_refused(tmp_path):
    path = write_profile(tmp_path, images={"executor": "example.test/executor:latest"})
    with pytest.raises(DataError, match=r"images\.executor: .* never latest"):
        profiles.load(str(path), known_features=KNOWN)


def test_unknown_implementation_lists_the_bundled_ones():
    with pytest.raises(DataError, match=r"not one of the bundled profiles .*reference"):
        profiles.load("no-such-controller")


def test_commands_render_with_literal_braces():
    command = ("kubectl", "patch", '{{"data":{{"initlessPod":"enabled: {initless}"}}}}')
    assert (
        profiles.render(command, {"initless": "true"})[-1]
        == '{"data":{"initlessPod":"enabled: true"}}'
    )


def test_rendering_without_a_value_is_an_error():
    with pytest.raises(DataError, match=r"no value for placeholder \{kubeconfig\}"):
        profiles.render(("kubectl", "--kubeconfig", "{kubeconfig}"), {})


def test_artifact_repository_secrets_are_loaded_as_namespace_name_pairs(tmp_path):
    secrets = [{"namespace": "argo", "name": "s3-creds"}]
    path = write_profile(tmp_path, artifactRepository={"secrets": secrets})
    profile = profiles.load(str(path), known_features=KNOWN)
    assert profile.repository_secrets == (("argo", "s3-creds"),)
    without = profiles.load(str(write_profile(tmp_path)), known_features=KNOWN)
    assert without.repository_secrets == ()


def test_an_artifact_repository_secret_without_a_namespace_is_named(tmp_path):
    path = write_profile(tmp_path, artifactRepository={"secrets": [{"name": "x"}]})
    with pytest.raises(
        DataError, match=r"artifactRepository.*'namespace' is a required"
    ):
        profiles.load(str(path), known_features=KNOWN)


@pytest.mark.parametrize(
    "name",
    ["reference", "reference-faulty", "argo-workflows", "argo-workflows-images"],
)
def test_bundled_profiles_can_set_a_configuration_field(name):
    profile = profiles.load(name)
    assert profile.commands["setConfig"]
    values = profiles.placeholder_values(
        profile,
        {
            **dict.fromkeys(profiles.COMMON_PLACEHOLDERS, "x"),
            **dict.fromkeys(profiles.INSTANCE_PLACEHOLDERS, "x"),
            **profiles.config_values("instanceID", None),
        },
    )
    for command in profile.commands["setConfig"]:
        profiles.render(command, values)


def test_set_config_may_use_its_placeholders_and_is_optional(tmp_path):
    command = ["set", "{namespace}", "{key}", "{value}", "{config_patch}"]
    profile = profiles.load(
        str(write_profile(tmp_path, commands__setConfig=[command])),
        known_features=KNOWN,
    )
    assert profile.commands["setConfig"] == (tuple(command),)
    without = profiles.load(str(PROFILE), known_features=KNOWN)
    assert without.commands["setConfig"] == ()


def test_only_set_config_may_use_the_configuration_placeholders(tmp_path):
    path = write_profile(tmp_path, commands__restart=[["restart", "{config_patch}"]])
    with pytest.raises(
        DataError,
        match=r"commands.restart\[0\]\[1\]: unknown placeholder \{config_patch\}",
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_configuration_values_are_json_and_a_configmap_merge_patch():
    images = {"example.test/tools:1": {"entrypoint": ["sh", "-c"], "cmd": ['echo "x"']}}
    values = profiles.config_values("images", images)
    assert values["key"] == "images"
    assert json.loads(values["value"]) == images
    assert "\n" not in values["value"]
    patch = json.loads(values["config_patch"])
    assert patch == {"data": {"images": values["value"]}}
    assert yaml.safe_load(f"images: {patch['data']['images']}") == {"images": images}


def test_a_null_configuration_value_removes_the_field():
    values = profiles.config_values("instanceID", None)
    assert values["value"] == "null"
    assert json.loads(values["config_patch"]) == {"data": {"instanceID": None}}


def test_rendered_configuration_placeholders_stay_literal():
    values = profiles.config_values("images", {"a:1": {"cmd": ["{x}"]}})
    command = ("kubectl", "patch", "-p", "{config_patch}", "{key}={value}")
    rendered = profiles.render(command, values)
    assert rendered[-2] == values["config_patch"]
    assert rendered[-1] == 'images={"a:1": {"cmd": ["{x}"]}}'


@pytest.mark.parametrize("key", ["", "config", "a.b", "1st", "instance-id", "x y"])
def test_a_configuration_key_must_be_one_field_name(key):
    with pytest.raises(HarnessError, match="expected one top-level field name"):
        profiles.config_values(key, 1)


@pytest.mark.parametrize("fault", faults.known_names())
def test_every_fault_gives_the_faulty_profile_valid_instance_ids(fault):
    # Why: an instance ID is a DNS label of at most 40 characters; a fault name too
    # long for `wpc-neg-{fault}-initless` failed only on the cluster, at install.
    profile = profiles.load("reference-faulty", variables={"fault": fault})
    assert all(fault in instance for instance in profile.instance_ids.values())
