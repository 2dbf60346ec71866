"""We test these aspects of `driving.InstanceController.set_config` (no cluster):

- it runs the profile's `setConfig` commands for its instance, with `{key}`,
  `{value}` (JSON) and `{config_patch}` filled in, and `null` for None;
- a key that is not one configuration field is refused before anything runs;
- a profile without `setConfig` is a harness error naming the command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance.errors import HarnessError
from conformance.harness.instances import layouts
from conformance.implementations import driving
from conformance.implementations import profiles
from tests.conformance.test_implementations import KNOWN
from tests.conformance.test_implementations import write_profile

RECORD = (
    "import json, sys; open(sys.argv[1], 'a').write(json.dumps(sys.argv[2:]) + '\\n')"
)


def controller(tmp_path: Path, **changes: object) -> driving.InstanceController:
    profile = profiles.load(
        str(write_profile(tmp_path, **changes)), known_features=KNOWN
    )
    driver = driving.Driver(
        profile=profile,
        values={"python": sys.executable, "cache_dir": str(tmp_path)},
        log_dir=tmp_path / "logs",
        timeout=60,
    )
    instance = layouts.Instance(
        layout="initless", instance_id="wpc-t-1", namespace="n1"
    )
    return driving.InstanceController(driver=driver, instance=instance)


def recorded(tmp_path: Path) -> list[list[str]]:
    lines = (tmp_path / "calls").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_set_config_fills_the_key_the_json_value_and_the_patch(tmp_path):
    ctl = controller(
        tmp_path,
        commands__setConfig=[
            [
                "{python}",
                "-c",
                RECORD,
                "{cache_dir}/calls",
                "{namespace}",
                "{initless}",
                "{key}",
                "{value}",
                "{config_patch}",
            ]
        ],
    )
    ctl.set_config("images", {"t:1": {"entrypoint": ["sh", "-c"], "cmd": ["echo"]}})
    ctl.set_config("instanceID", None)
    first, second = recorded(tmp_path)
    value = '{"t:1": {"cmd": ["echo"], "entrypoint": ["sh", "-c"]}}'
    assert first == [
        "n1",
        "true",
        "images",
        value,
        json.dumps({"data": {"images": value}}),
    ]
    assert second == [
        "n1",
        "true",
        "instanceID",
        "null",
        '{"data": {"instanceID": null}}',
    ]


def test_a_key_that_is_not_a_field_runs_nothing(tmp_path):
    ctl = controller(
        tmp_path,
        commands__setConfig=[["{python}", "-c", RECORD, "{cache_dir}/calls", "{key}"]],
    )
    with pytest.raises(HarnessError, match="'config': expected one top-level field"):
        ctl.set_config("config", "instanceID: x")
    assert not (tmp_path / "calls").exists()


def test_a_profile_without_set_config_is_a_harness_error(tmp_path):
    ctl = controller(tmp_path)
    with pytest.raises(HarnessError, match="has no 'setConfig' commands"):
        ctl.set_config("instanceID", None)
