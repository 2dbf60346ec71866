"""We test these aspects of `python -m reference_impl.deploy set-config` (no cluster):

- `rendering.config_patch` sets one ConfigMap key to the value as one line of JSON,
  or removes it for null; applied to an instance's ConfigMap, the controller parses
  the result as the new configuration (an `images` map; no `instanceID` after removal);
- a key that is not one top-level field name (or is Argo's `config`) is refused;
- the verb patches the instance's ConfigMap, then restarts the controller and waits
  for the rollout, through the given kubectl and kubeconfig; bad input runs nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reference_impl.controller.config import configuration
from reference_impl.deploy import __main__ as cli
from reference_impl.deploy import rendering

IMAGES = {"wpc.local/wpc-tools:0.1.0": {"entrypoint": ["sh", "-c"], "cmd": ["echo"]}}
INSTANCE = rendering.Instance(
    namespace="wpc-t-1", instance_id="wpc-t-1", layout="legacy"
)


def merged(
    data: dict[str, str], patch: dict[str, dict[str, str | None]]
) -> dict[str, str]:
    """What a JSON merge patch of `data` leaves (null removes a key)."""
    out = dict(data)
    for key, value in patch["data"].items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def test_the_patch_sets_a_field_the_controller_parses():
    patch = rendering.config_patch("images", IMAGES)
    assert patch == {"data": {"images": json.dumps(IMAGES)}}
    parsed = configuration.parse(merged(rendering.config_data(INSTANCE), patch))
    assert parsed.images == IMAGES
    assert parsed.instance_id == "wpc-t-1"


def test_null_removes_the_field():
    patch = rendering.config_patch("instanceID", None)
    assert patch == {"data": {"instanceID": None}}
    parsed = configuration.parse(merged(rendering.config_data(INSTANCE), patch))
    assert parsed.instance_id == ""
    assert parsed.initless is False


@pytest.mark.parametrize("key", ["", "config", "a.b", "instance-id"])
def test_a_key_must_be_one_field_name(key):
    with pytest.raises(ValueError, match="expected one top-level field name"):
        rendering.config_patch(key, 1)


@pytest.fixture
def kubectl(tmp_path: Path) -> Path:
    """A kubectl stand-in that records its argv, one JSON line per call."""
    path = tmp_path / "kubectl"
    path.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"open({str(tmp_path / 'calls')!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
    )
    path.chmod(0o755)
    return path


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "calls"
    return (
        [json.loads(line) for line in log.read_text().splitlines()]
        if log.exists()
        else []
    )


def run(kubectl: Path, *extra: str) -> int:
    return cli.main(
        [
            "set-config",
            "--kubectl",
            str(kubectl),
            "--kubeconfig",
            "/kc",
            "--namespace",
            "wpc-t-1",
            *extra,
        ]
    )


def test_set_config_patches_then_restarts_and_waits(tmp_path, kubectl):
    assert run(kubectl, "--key", "images", "--value", json.dumps(IMAGES)) == 0
    base = ["--kubeconfig", "/kc", "-n", "wpc-t-1"]
    assert calls(tmp_path) == [
        [
            *base,
            "patch",
            "configmap",
            "workflow-controller-configmap",
            "--type",
            "merge",
            "-p",
            json.dumps({"data": {"images": json.dumps(IMAGES)}}),
        ],
        [*base, "rollout", "restart", "deployment/workflow-controller"],
        [
            *base,
            "rollout",
            "status",
            "deployment/workflow-controller",
            "--timeout=180s",
        ],
        # then the old (terminating) controller pods: none in this fake
        [
            *base,
            "get",
            "pod",
            "-l",
            "app.kubernetes.io/name=wpc-controller",
            "-o",
            "jsonpath={range .items[?(@.metadata.deletionTimestamp)]}"
            "{.metadata.name}{' '}{end}",
        ],
    ]


def test_set_config_removes_a_field_for_null(tmp_path, kubectl):
    assert run(kubectl, "--key", "instanceID", "--value", "null") == 0
    assert calls(tmp_path)[0][-1] == '{"data": {"instanceID": null}}'


@pytest.mark.parametrize(
    "extra",
    [("--key", "config", "--value", "1"), ("--key", "images", "--value", "{oops")],
)
def test_bad_input_runs_nothing(tmp_path, kubectl, capsys, extra):
    assert run(kubectl, *extra) == 1
    assert calls(tmp_path) == []
    assert capsys.readouterr().err.startswith("error: ")
