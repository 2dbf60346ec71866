"""We test these aspects of instance-ID ownership:

- with fake API clients: a record naming another implementation is refused with
  the command that removes it; a record naming this one passes without a
  canary; records are written and forgotten;
- on the real cluster (after `make test`'s smoke run left the reference's shared
  instances installed): a run of another implementation under the same IDs is
  refused, both by the record and, with the record gone, by the canary workflow
  the reference controller processes; the reference itself is let through.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.errors import ClusterRefused
from conformance.harness import kube
from conformance.harness.layouts import Instance
from conformance.harness.timeouts import Timeouts
from conformance.implementations import ownership
from conformance.implementations import profiles


class FakeCore:
    def __init__(self) -> None:
        self.maps: dict[str, dict] = {}

    def read_namespaced_config_map(self, name, namespace):
        if name not in self.maps:
            raise ApiException(status=404)
        return SimpleNamespace(data=self.maps[name]["data"])

    def create_namespaced_config_map(self, namespace, body):
        if body["metadata"]["name"] in self.maps:
            raise ApiException(status=409)
        self.maps[body["metadata"]["name"]] = body

    def replace_namespaced_config_map(self, name, namespace, body):
        self.maps[name] = body

    def delete_namespaced_config_map(self, name, namespace):
        if name not in self.maps:
            raise ApiException(status=404)
        del self.maps[name]


INSTANCE = Instance(layout="legacy", instance_id="wpc-legacy", namespace="wpc-legacy")


def _clients():
    return SimpleNamespace(
        core=FakeCore(),
        api=SimpleNamespace(
            configuration=SimpleNamespace(host="https://192.0.2.2:6443")
        ),
    )


def _profile(name: str):
    return SimpleNamespace(
        name=name, path=Path(f"/p/{name}.yaml"), images={"tools": "t:1"}
    )


def test_a_record_of_another_implementation_is_refused_with_the_remedy():
    clients = _clients()
    ownership.record(clients, instance=INSTANCE, profile=_profile("reference"))
    with pytest.raises(ownership.InstanceTaken) as info:
        ownership.check_free(
            clients,
            instance=INSTANCE,
            profile=_profile("argo-workflows"),
            timeouts=Timeouts(),
            session_id="s",
        )
    text = str(info.value)
    assert "served by implementation 'reference'" in text
    assert "python -m conformance uninstall --implementation reference" in text


def test_a_record_of_this_implementation_passes_and_records_are_replaced_and_forgotten():
    clients = _clients()
    ownership.record(clients, instance=INSTANCE, profile=_profile("reference"))
    ownership.record(
        clients, instance=INSTANCE, profile=_profile("reference")
    )  # replaced, no 409
    ownership.check_free(
        clients,
        instance=INSTANCE,
        profile=_profile("reference"),
        timeouts=Timeouts(),
        session_id="s",
    )
    assert ownership.read(clients, "wpc-legacy").implementation == "reference"
    ownership.forget(clients, "wpc-legacy")
    ownership.forget(clients, "wpc-legacy")  # idempotent
    assert ownership.read(clients, "wpc-legacy") is None


@pytest.mark.cluster
@pytest.mark.ownership
def test_another_implementation_under_the_references_instance_ids_is_refused():
    from clusters import providers

    kubeconfig = str(providers.get("local").kubeconfig("wpc"))
    clients = kube.connect(kubeconfig)
    reference = profiles.load("reference")
    upstream = profiles.load("argo-workflows")
    instance = reference.instance("legacy")
    owner = ownership.read(clients, instance.instance_id)
    assert owner is not None
    assert owner.implementation == "reference", (
        "the smoke run should have left the reference installed"
    )
    timeouts = Timeouts()
    with pytest.raises(
        ownership.InstanceTaken, match="served by implementation 'reference'"
    ):
        ownership.check_free(
            clients,
            instance=instance,
            profile=upstream,
            timeouts=timeouts,
            session_id="own-1",
        )
    ownership.forget(clients, instance.instance_id)
    try:
        with pytest.raises(
            ownership.InstanceTaken,
            match="already served by a controller WPC did not install",
        ):
            ownership.check_free(
                clients,
                instance=instance,
                profile=upstream,
                timeouts=timeouts,
                session_id="own-2",
            )
    finally:
        ownership.record(clients, instance=instance, profile=reference)
    ownership.check_free(
        clients,
        instance=instance,
        profile=reference,
        timeouts=timeouts,
        session_id="own-3",
    )


def test_the_refusal_is_a_cluster_refusal_with_the_exact_command_for_that_instance():
    clients = _clients()
    differential = Instance(
        layout="initless",
        instance_id="wpc-diff-b-initless",
        namespace="argo-wpc-diff-b-initless",
    )
    bundled = SimpleNamespace(
        name="reference",
        path=profiles.resolve("reference").resolve(),
        images={"tools": "t:1"},
    )
    ownership.record(clients, instance=differential, profile=bundled)
    with pytest.raises(ClusterRefused) as info:
        ownership.check_free(
            clients,
            instance=differential,
            profile=_profile("argo-workflows"),
            timeouts=Timeouts(),
            session_id="s",
            cluster_args=("--provider", "local", "--cluster", "wpc"),
        )
    assert isinstance(info.value, ownership.InstanceTaken)
    assert str(info.value).endswith(
        "python -m conformance uninstall --implementation reference --layout initless "
        "--instance-id wpc-diff-b-initless --provider local --cluster wpc"
    )


def test_a_profile_outside_the_bundle_is_named_by_its_path_in_the_command(tmp_path):
    mine = tmp_path / "my profile.yaml"
    mine.write_text("")
    owner = ownership.Owner(
        implementation="mine", profile=str(mine), namespace="n", layout="legacy"
    )
    assert ownership.remove_command(
        owner,
        instance_id="wpc-legacy",
        layout="legacy",
        cluster_args=("--kubeconfig", "/k"),
    ) == (
        f"python -m conformance uninstall --implementation '{mine}' "
        "--layout legacy --instance-id wpc-legacy --kubeconfig /k"
    )


def test_a_run_is_refused_before_it_builds_or_prepares_anything(monkeypatch, tmp_path):
    from conformance.implementations import preparing
    from conformance.implementations.contexts import ClusterChoice

    did: list[str] = []
    monkeypatch.setattr(preparing, "locate_cluster", lambda cluster: ("/k", "kubectl"))
    monkeypatch.setattr(preparing.kube, "connect", lambda path: _clients())
    monkeypatch.setattr(preparing, "check_marker", lambda clients, allow_foreign: {})
    monkeypatch.setattr(
        preparing.locking,
        "hold_for_life",
        lambda name, cluster: did.append("life lock"),
    )
    monkeypatch.setattr(
        preparing, "load_tools_image", lambda cluster: did.append("tools image")
    )
    monkeypatch.setattr(
        preparing.driving.Driver, "prepare", lambda self, layouts: did.append("prepare")
    )

    def taken(clients, **kwargs):
        did.append(f"check {kwargs['instance'].instance_id} {kwargs['cluster_args']}")
        raise ownership.InstanceTaken("taken")

    monkeypatch.setattr(preparing.ownership, "check_free", taken)
    with pytest.raises(ownership.InstanceTaken):
        preparing.prepare_run(
            cluster=ClusterChoice(
                kubeconfig=None, provider="local", cluster="wpc", allow_foreign=False
            ),
            profile=profiles.load("argo-workflows"),
            layouts=("legacy",),
            skip_install=False,
            log_dir=tmp_path,
            timeouts=Timeouts(),
        )
    assert did == [
        "life lock",
        "check wpc-legacy ('--provider', 'local', '--cluster', 'wpc')",
    ]


def test_uninstall_removes_one_named_instance(monkeypatch, capsys):
    from conformance.exitcodes import ExitCode
    from conformance.implementations import preparing
    from wpc import suite_cli as entry

    removed = []

    def uninstall(*, cluster, profile, instances, log_dir, timeouts):
        removed.extend(instances)
        return [i.instance_id for i in instances]

    monkeypatch.setattr(preparing, "uninstall_instances", uninstall)
    argv = [
        "uninstall",
        "--implementation",
        "argo-workflows",
        "--layout",
        "legacy",
        "--instance-id",
        "wpc-diff-b-legacy",
    ]
    assert entry.main(argv) == 0
    assert removed == [
        Instance(
            layout="legacy",
            instance_id="wpc-diff-b-legacy",
            namespace="argo-wpc-diff-b-legacy",
        )
    ]
    assert "uninstalled argo-workflows: wpc-diff-b-legacy" in capsys.readouterr().out
    argv[4] = "both"
    assert entry.main(argv) == ExitCode.INVALID_INPUT


def _cluster_run(argv: list[str]) -> tuple[int, str]:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "conformance", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.cluster
@pytest.mark.ownership
def test_a_conformance_run_of_another_implementation_is_refused_before_it_builds():
    """After the smoke run the reference serves wpc-legacy: upstream's run must not start."""
    from conformance.exitcodes import ExitCode

    code, output = _cluster_run(
        [
            "run",
            "--implementation",
            "argo-workflows",
            "--layout",
            "legacy",
            "--provider",
            "local",
            "--cluster",
            "wpc",
            "--reports-dir",
            "reports/ownership-refused",
            "--",
            "-k",
            "test_hello_world",
        ]
    )
    assert code == ExitCode.CLUSTER_REFUSED, output
    assert "instance ID wpc-legacy is served by implementation 'reference'" in output
    assert (
        "python -m conformance uninstall --implementation reference --layout legacy "
        "--instance-id wpc-legacy --provider local --cluster wpc" in output
    )
    assert "Preparing argo-workflows" not in output


@pytest.mark.cluster
@pytest.mark.ownership
def test_a_differential_run_is_refused_where_another_implementation_serves_a_side(
    tmp_path,
):
    """The reference installed under side B's ID refuses a run whose B is upstream."""
    from conformance.exitcodes import ExitCode
    from conformance.implementations import driving
    from conformance.implementations import preparing
    from conformance.implementations.contexts import ClusterChoice
    from wpc.differential import installing

    reference = profiles.load("reference")
    timeouts = Timeouts()
    context = preparing.prepare_run(
        cluster=ClusterChoice(
            kubeconfig=None, provider="local", cluster="wpc", allow_foreign=False
        ),
        profile=reference,
        layouts=("legacy",),
        skip_install=True,
        log_dir=tmp_path,
        timeouts=timeouts,
    )
    clients = kube.connect(context.kubeconfig)
    driver = driving.Driver(
        profile=reference,
        values=context.placeholders,
        log_dir=tmp_path,
        timeout=timeouts.install,
    )
    instance = installing.side_instance(driver, side="b", layout="legacy")
    argv = [
        "differential",
        "--a",
        "reference",
        "--b",
        "argo-workflows",
        "--layout",
        "legacy",
        "--out",
        str(tmp_path),
    ]
    with installing.installed(clients, driver, instance):
        code, output = _cluster_run(argv)
        assert code == ExitCode.CLUSTER_REFUSED, output
        assert (
            "instance ID wpc-diff-b-legacy is served by implementation 'reference'"
            in output
        )
        assert (
            "python -m conformance uninstall --implementation reference --layout legacy "
            "--instance-id wpc-diff-b-legacy --provider local --cluster wpc" in output
        )
        ownership.forget(clients, instance.instance_id)
        try:
            code, output = _cluster_run(argv)
            assert code == ExitCode.CLUSTER_REFUSED, output
            assert "already served by a controller WPC did not install" in output
        finally:
            ownership.record(clients, instance=instance, profile=reference)
    assert ownership.read(clients, instance.instance_id) is None
    assert not list((tmp_path).glob("differential-*.yaml"))
