"""We test that the suite's tools image belongs to the suite, not to a profile:

- a profile without `images.tools` still gives scenarios the suite's image;
- a profile naming another tools image is refused, naming the key;
- the `describe` command is a known profile command with only the common placeholders.
"""

from __future__ import annotations

import pytest
import yaml

from conformance import contract
from conformance.errors import DataError
from conformance.implementations import profiles


def _write(tmp_path, **images):
    data = yaml.safe_load((profiles.PROFILES_DIR / "argo-workflows.yaml").read_text())
    data["images"] = {"executor": "e:1", "controller": "c:1", **images}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_profile_without_tools_gets_the_suites_image(tmp_path):
    profile = profiles.load(_write(tmp_path))
    assert profile.images["tools"] == contract.TOOLS_IMAGE


def test_a_profile_naming_another_tools_image_is_refused(tmp_path):
    with pytest.raises(
        DataError, match=r"images\.tools: 'x/tools:1': the suite loads its own"
    ):
        profiles.load(_write(tmp_path, tools="x/tools:1"))


def test_describe_takes_only_the_common_placeholders():
    assert profiles.COMMAND_PLACEHOLDERS["describe"] == frozenset()
    profile = profiles.load(profiles.PROFILES_DIR / "argo-workflows.yaml")
    assert "describe" in profile.commands
