"""The executor-image fault's configuration values (`chaos.controller.configuring`).

We test these aspects: Argo's `executor` ConfigMap value is read as a mapping
(absent or empty: None; YAML that is not a mapping: an error, so a rollback
never guesses); the faulty value keeps every other field and only changes the
image, with a pull policy that uses the image already on the node.
"""

from __future__ import annotations

import pytest

from chaos.controller import configuring


@pytest.mark.parametrize("text", [None, "", "  \n", "null\n"])
def test_an_absent_or_empty_field_is_none(text):
    assert configuring.parse_executor(text) is None


def test_the_field_is_read_as_yaml_or_json():
    text = "image: wpc.local/reference/argoexec:0.1.0\nimagePullPolicy: IfNotPresent\n"
    assert configuring.parse_executor(text) == {
        "image": "wpc.local/reference/argoexec:0.1.0",
        "imagePullPolicy": "IfNotPresent",
    }
    assert configuring.parse_executor('{"image": "e:1"}') == {"image": "e:1"}


def test_a_field_that_is_not_a_mapping_is_refused():
    with pytest.raises(ValueError, match="not a mapping"):
        configuring.parse_executor("- image: e:1\n")


def test_the_faulty_value_changes_only_the_image():
    original = {
        "image": "e:1",
        "imagePullPolicy": "Never",
        "resources": {"limits": {"memory": "64Mi"}},
    }
    assert configuring.faulty_executor(original, "t:1") == {
        "image": "t:1",
        "imagePullPolicy": "Never",
        "resources": {"limits": {"memory": "64Mi"}},
    }
    assert original["image"] == "e:1"


@pytest.mark.parametrize("policy", [None, "Always", ""])
def test_a_policy_that_would_pull_becomes_if_not_present(policy):
    original = {} if policy is None else {"imagePullPolicy": policy}
    assert configuring.faulty_executor(original, "t:1") == {
        "image": "t:1",
        "imagePullPolicy": "IfNotPresent",
    }


def test_no_field_at_all_gets_image_and_policy():
    assert configuring.faulty_executor(None, "t:1") == {
        "image": "t:1",
        "imagePullPolicy": "IfNotPresent",
    }
