"""We test these aspects of the command line and the package surface: the
public names, the `bench` and `bench-compare` verbs of `python -m conformance`
with the defaults the issue asks for, parsing into settings (layouts,
counts, timeout scale, cluster choice), the workflow the bench submits, and
the bench's own controller instance, refused where it would land in a
shared instance's namespace.
"""

from __future__ import annotations

import dataclasses

import pytest

import wpc.bench
from conformance.errors import DataError
from conformance.errors import HarnessError
from conformance.harness.instances.layouts import Instance
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from wpc.bench import cli
from wpc.bench import installing
from wpc.bench import markers
from wpc.bench import workloads
from wpc.suite_cli import parser as _parser


def test_public_names_are_pinned():
    assert wpc.bench.__all__ == ["BenchSettings", "run"]


def test_defaults_match_the_issue():
    args = _parser().parse_args(["bench"])
    settings = cli.settings_of(args)
    assert (settings.workflows, settings.inflight) == (50, 5)
    assert settings.layouts == ("legacy", "initless")
    assert settings.implementation == "reference"
    assert settings.prepare is True
    assert ClusterChoice.of(args).cluster == "wpc"


def test_flags_become_settings():
    args = _parser().parse_args(
        [
            "bench",
            "--implementation",
            "argo-workflows",
            "--layout",
            "initless",
            "--workflows",
            "10",
            "--inflight",
            "2",
            "--skip-prepare",
            "--timeout-scale",
            "2",
            "--profile-var",
            "source=/src/argo",
            "--profile-var",
            "ref=v4.1.2",
        ]
    )
    settings = cli.settings_of(args)
    assert settings.profile_vars == (("source", "/src/argo"), ("ref", "v4.1.2"))
    assert settings.layouts == ("initless",)
    assert (settings.workflows, settings.inflight, settings.prepare) == (10, 2, False)
    assert settings.timeouts.workflow_completed == 360.0


@pytest.mark.parametrize(
    "argv",
    [["--layout", "sideways"], ["--workflows", "0"]],
)
def test_bad_values_are_rejected(argv, capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["bench", *argv])


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["ref=a", "ref=b"], "--profile-var ref given twice"),
        (["novalue"], "--profile-var must look like NAME=VALUE, not 'novalue'"),
    ],
)
def test_a_bad_profile_variable_is_invalid_input(given, message):
    # The one parser of `conformance.implementations.variables`, as every verb has it.
    argv = [word for item in given for word in ("--profile-var", item)]
    args = _parser().parse_args(["bench", *argv])
    with pytest.raises(DataError, match=f"^{message}$"):
        cli.settings_of(args)


@pytest.mark.parametrize("scale", ["nan", "inf", "0.5"])
def test_a_timeout_scale_below_1_or_not_finite_is_invalid_input(scale):
    args = _parser().parse_args(["bench", "--timeout-scale", scale])
    with pytest.raises(DataError, match=rf"^--timeout-scale {scale}: .*at least 1"):
        cli.settings_of(args)


def test_compare_takes_two_files():
    args = _parser().parse_args(["bench-compare", "a.yaml", "b.yaml"])
    assert (str(args.first), str(args.second)) == ("a.yaml", "b.yaml")


def test_workflow_carries_the_script_and_labels_its_pods():
    body = workloads.workflow(image="img:1", layout="legacy", labels={"a": "b"})
    assert body["spec"]["podMetadata"]["labels"] == {"a": "b"}
    container = body["spec"]["templates"][0]["container"]
    assert container["args"] == [markers.SCRIPT]
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert body["metadata"]["generateName"] == "wpc-bench-legacy-"


def test_the_bench_instance_is_its_own():
    profile = profiles.load("reference")
    instance = installing.bench_instance(
        profile, layout="initless", instance_id="wpc-bench-initless"
    )
    assert instance.namespace == "wpc-bench-initless"
    assert instance.namespace != profile.instance("initless").namespace


def test_a_profile_with_one_controller_namespace_is_refused():
    profile = dataclasses.replace(
        profiles.load("reference"), controller_namespace="argo"
    )
    with pytest.raises(HarnessError, match="shared namespace argo"):
        installing.bench_instance(profile, layout="legacy", instance_id="wpc-bench-x")


class _Driver:
    """Records the profile commands `installed` runs."""

    def __init__(self) -> None:
        self.profile = profiles.load("reference")
        self.calls: list[tuple[str, str]] = []

    def control(self, verb: str, instance: Instance) -> None:
        self.calls.append((verb, instance.instance_id))


def test_installed_uninstalls_the_instance_even_when_the_run_fails():
    driver = _Driver()
    instance = installing.bench_instance(
        driver.profile, layout="legacy", instance_id="wpc-bench-legacy"
    )
    seen: list[list[tuple[str, str]]] = []

    def run() -> None:
        with preparing.installed(driver, instance) as given:
            seen.append(list(driver.calls))
            assert given is instance
            raise RuntimeError("run failed")

    with pytest.raises(RuntimeError, match="run failed"):
        run()
    assert seen == [[("install", "wpc-bench-legacy")]]
    assert driver.calls == [
        ("install", "wpc-bench-legacy"),
        ("uninstall", "wpc-bench-legacy"),
    ]
