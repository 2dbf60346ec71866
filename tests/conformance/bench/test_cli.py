"""We test these aspects of the command line and the package surface: the
public names, argument parsing into settings (layouts, counts, instance IDs),
the kubeconfig lookup through a `python -m clusters` subprocess (a fake
interpreter here), and the workflow manifest's labels and instance ID.
"""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

import reference_impl.bench
from reference_impl.bench import __main__ as cli
from reference_impl.bench import clocks
from reference_impl.bench import manifests
from reference_impl.bench import markers
from reference_impl.bench import running
from reference_impl.bench.errors import CommandError


def test_public_names_are_pinned():
    assert reference_impl.bench.__all__ == [
        "BenchError",
        "BenchSettings",
        "Timeouts",
        "run",
    ]


def test_defaults_match_the_issue():
    args = cli._parser().parse_args(["--cluster", "wpc"])
    assert (args.count, args.concurrency) == (50, 5)
    assert args.layouts == ("legacy", "initless")
    assert str(args.report) == "reports/bench.json"


def test_layouts_and_instances_parse():
    args = cli._parser().parse_args(
        ["--cluster", "c", "--layouts", "initless", "--instance", "initless=other"]
    )
    assert args.layouts == ("initless",)
    assert args.instance == [("initless", "other")]


@pytest.mark.parametrize("text", ["", "legacy,sideways"])
def test_unknown_layouts_are_rejected(text):
    with pytest.raises(argparse.ArgumentTypeError):
        cli._layouts(text)


def _fake_python(tmp_path: Path, body: str) -> str:
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_kubeconfig_is_the_last_line_clusters_prints(tmp_path):
    python = _fake_python(tmp_path, 'echo "noise"; echo "/k/$5.kubeconfig"')
    assert running.find_kubeconfig("wpc", python=python) == "/k/wpc.kubeconfig"


def test_a_failed_kubeconfig_lookup_carries_the_command_and_output(tmp_path):
    python = _fake_python(tmp_path, 'echo "no cluster $5" >&2; exit 3')
    with pytest.raises(CommandError) as info:
        running.find_kubeconfig("gone", python=python)
    message = str(info.value)
    assert "exit code 3" in message
    assert "-m clusters kubeconfig --name gone" in message
    assert "no cluster gone" in message


def test_workflow_carries_session_layout_and_instance_labels():
    body = manifests.workflow(
        layout="legacy", instance_id="wpc-legacy", session_id="s1", image="img:1"
    )
    labels = body["metadata"]["labels"]
    assert labels["workflows.argoproj.io/controller-instanceid"] == "wpc-legacy"
    assert labels[manifests.SESSION] == "s1"
    assert body["spec"]["podMetadata"]["labels"][manifests.LAYOUT] == "legacy"
    container = body["spec"]["templates"][0]["container"]
    assert container["args"] == [markers.SCRIPT]
    assert container["imagePullPolicy"] == "IfNotPresent"


@pytest.mark.parametrize(
    ("skew", "ok"), [(-1.0, True), (0.0, True), (4.0, True), (-2.0, False), (95, False)]
)
def test_clock_skew_bounds(skew, ok):
    assert clocks.skew_ok(skew) is ok
