"""We test these aspects of instance-ID ownership:

- with a fake API server (`fakerecords`): a record naming another implementation
  is refused with the command that removes it; a released record of this
  implementation is taken without a canary; a release keeps the owner, a forget
  deletes the record; a renewal moves the lease on, and a run whose record was
  taken over learns it (test_instance_lock.py has the races between runs);
- on the real cluster (after `make test`'s smoke run left the reference's shared
  instances installed): a run of another implementation under the same IDs is
  refused, both by the record and, with the record gone, by the canary workflow
  the reference controller processes; the reference itself is let through; of
  two runs racing for one ID exactly one wins, and a `conformance run` started
  while another run holds the ID is refused before it prepares anything.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.errors import ClusterRefused
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances.layouts import Instance
from conformance.implementations import leases
from conformance.implementations import ownership
from conformance.implementations import profiles
from conformance.implementations import records
from tests.conformance import fakerecords

INSTANCE = Instance(layout="legacy", instance_id="wpc-legacy", namespace="wpc-legacy")
LIFE_LOCKS = "https://192.0.2.2:6443"


def _profile(name: str, path: Path | None = None):
    return SimpleNamespace(
        name=name,
        version="1.0",
        variables={},
        path=path or Path(f"/p/{name}.yaml"),
        images={"tools": "t:1"},
    )


def _acquire(clients, profile, *, instance=INSTANCE, session="s", cluster_args=()):
    return ownership.acquire(
        clients,
        instance=instance,
        profile=profile,
        session_id=session,
        timeouts=Timeouts(),
        life_locks=LIFE_LOCKS,
        cluster_args=cluster_args,
    )


def _installed_earlier(clients, profile, *, instance=INSTANCE):
    """What an earlier run leaves: the record of what it installed, released."""
    leases.release(clients, _acquire(clients, profile, instance=instance, session="e"))


@pytest.fixture
def no_canary(monkeypatch):
    monkeypatch.setattr(ownership, "_probe_unserved", lambda clients, **kw: None)


def test_a_record_of_another_implementation_is_refused_with_the_remedy(no_canary):
    clients = fakerecords.clients()
    _installed_earlier(clients, _profile("reference"))
    with pytest.raises(ownership.InstanceTaken) as info:
        _acquire(clients, _profile("argo-workflows"))
    text = str(info.value)
    assert "served by implementation 'reference' at ref 1.0" in text
    assert "python -m conformance uninstall --implementation reference" in text


def test_a_released_record_of_this_owner_is_taken_kept_on_release_and_forgotten(
    no_canary, monkeypatch
):
    clients = fakerecords.clients()
    _installed_earlier(clients, _profile("reference"))
    canaries = []
    monkeypatch.setattr(
        ownership, "_probe_unserved", lambda clients, **kw: canaries.append(kw)
    )
    held = _acquire(clients, _profile("reference"), session="t")
    assert not held.created
    assert canaries == []  # ours from an earlier run: no canary
    found = records.read(clients, "wpc-legacy")
    assert found.holder.session == "t"
    assert found.owner.implementation == "reference"
    leases.release(clients, held)
    found = records.read(clients, "wpc-legacy")
    assert found.holder is None
    assert found.owner.implementation == "reference"
    held = _acquire(clients, _profile("reference"), session="u")
    leases.release(clients, held, forget=True)
    assert records.read(clients, "wpc-legacy") is None
    leases.release(clients, held, forget=True)  # nothing left to forget: no error


def test_a_renewal_moves_the_lease_on_and_a_run_learns_it_lost_its_record(no_canary):
    clients = fakerecords.clients()
    held = _acquire(clients, _profile("reference"), session="t")
    clients.core.advance(leases.RENEW_SECONDS)
    assert leases.renew(clients, held) is None
    found = records.read(clients, "wpc-legacy")
    assert found.holder.renewed == clients.core.now
    clients.core.advance(leases.LEASE_SECONDS + 1)  # the run stalled: its lease ran out
    _acquire(clients, _profile("reference"), session="other")
    assert "session other" in leases.renew(clients, held)
    leases.release(clients, held)  # no longer ours: left as it is
    assert records.read(clients, "wpc-legacy").holder.session == "other"


def test_a_record_from_before_refs_and_holders_reads_as_released(no_canary):
    clients = fakerecords.clients()
    clients.core.create_namespaced_config_map(
        "kube-system",
        {
            "metadata": {"name": "wpc-instance-wpc-legacy"},
            "data": {
                "implementation": "reference",
                "profile": "/p/reference.yaml",
                "namespace": "wpc-legacy",
                "layout": "legacy",
            },
        },
    )
    found = records.read(clients, "wpc-legacy")
    assert found.holder is None
    assert found.owner.ref == ""
    held = _acquire(clients, _profile("reference"))  # its implementation is all it says
    assert records.read(clients, "wpc-legacy").owner.ref == "1.0"
    assert held.session_id == "s"


def _forget(clients, instance_id: str) -> None:
    """Delete an instance's record, whoever holds it (a test's cleanup)."""
    found = records.read(clients, instance_id)
    if found is not None:
        records.delete(clients, instance_id, version=found.version)


def _local_clients():
    from clusters import providers

    return kube.connect(str(providers.get("local").kubeconfig("wpc")))


@pytest.mark.cluster
@pytest.mark.ownership
def test_another_implementation_under_the_references_instance_ids_is_refused():
    clients = _local_clients()
    life_locks = str(clients.api.configuration.host)
    reference = profiles.load("reference")
    upstream = profiles.load("argo-workflows")
    instance = reference.instance("legacy")
    found = records.read(clients, instance.instance_id)
    assert found is not None
    assert found.owner.implementation == "reference", (
        "the smoke run should have left the reference installed"
    )
    assert found.holder is None, "the smoke run should have released its record"
    timeouts = Timeouts()

    def acquire(profile, session):
        return ownership.acquire(
            clients,
            instance=instance,
            profile=profile,
            session_id=session,
            timeouts=timeouts,
            life_locks=life_locks,
        )

    with pytest.raises(
        ownership.InstanceTaken, match="served by implementation 'reference'"
    ):
        acquire(upstream, "own-1")
    _forget(clients, instance.instance_id)
    try:
        with pytest.raises(
            ownership.InstanceTaken,
            match="already served by a controller WPC did not install",
        ):
            acquire(upstream, "own-2")
        assert records.read(clients, instance.instance_id) is None, (
            "the refused run left the record it created"
        )
    finally:
        # The reference's record as the smoke run left it: released, owner kept.
        _forget(clients, instance.instance_id)
        records.create(
            clients,
            instance.instance_id,
            owner=ownership.owner_of(reference, instance),
            holder=leases.holder("own-restore", records.server_now(clients)),
        )
        leases.release(
            clients, leases.Held(instance.instance_id, "own-restore", created=False)
        )
    leases.release(clients, acquire(reference, "own-3"))


def test_the_refusal_is_a_cluster_refusal_with_the_exact_command_for_that_instance(
    no_canary,
):
    clients = fakerecords.clients()
    differential = Instance(
        layout="initless",
        instance_id="wpc-diff-b-initless",
        namespace="argo-wpc-diff-b-initless",
    )
    bundled = _profile("reference", path=profiles.resolve("reference").resolve())
    _installed_earlier(clients, bundled, instance=differential)
    with pytest.raises(ClusterRefused) as info:
        _acquire(
            clients,
            _profile("argo-workflows"),
            instance=differential,
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
    owner = records.Owner(
        implementation="mine", profile=str(mine), namespace="n", layout="legacy"
    )
    instance = Instance(layout="initless", instance_id="wpc-legacy", namespace="n")
    assert ownership.remove_command(
        owner, instance, cluster_args=("--kubeconfig", "/k")
    ) == (
        f"python -m conformance uninstall --implementation '{mine}' "
        "--layout legacy --instance-id wpc-legacy --kubeconfig /k"
    )


def test_a_run_is_refused_before_it_builds_or_prepares_anything(monkeypatch, tmp_path):
    from conformance.implementations import preparing
    from conformance.implementations.contexts import ClusterChoice

    did: list[str] = []
    monkeypatch.setattr(preparing, "locate_cluster", lambda cluster: ("/k", "kubectl"))
    monkeypatch.setattr(preparing.kube, "connect", lambda path: fakerecords.clients())
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
        for instance, _profile in kwargs["claims"]:
            did.append(f"check {instance.instance_id} {kwargs['cluster_args']}")
        raise ownership.InstanceTaken("taken")

    monkeypatch.setattr(preparing.ownership, "acquire_all", taken)
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

    forced = []

    def uninstall(*, cluster, profile, instances, log_dir, timeouts, force):
        removed.extend(instances)
        forced.append(force)
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
    assert entry.main([*argv, "--force"]) == 0
    assert forced == [False, True]
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


def _hello_world(implementation: str, reports: str) -> tuple[int, str]:
    """`conformance run` of HelloWorld (legacy) on the local cluster."""
    return _cluster_run(
        [
            "run",
            "--implementation",
            implementation,
            "--layout",
            "legacy",
            "--provider",
            "local",
            "--cluster",
            "wpc",
            "--reports-dir",
            f"reports/{reports}",
            "--",
            "-k",
            "test_hello_world",
        ]
    )


@pytest.mark.cluster
@pytest.mark.ownership
def test_a_conformance_run_of_another_implementation_is_refused_before_it_builds():
    """After the smoke run the reference serves wpc-legacy: upstream's run must not start."""
    from conformance.exitcodes import ExitCode

    code, output = _hello_world("argo-workflows", "ownership-refused")
    assert code == ExitCode.CLUSTER_REFUSED, output
    assert "instance ID wpc-legacy is served by implementation 'reference'" in output
    assert (
        "python -m conformance uninstall --implementation reference --layout legacy "
        "--instance-id wpc-legacy --provider local --cluster wpc" in output
    )
    assert "Preparing argo-workflows" not in output


RACE_TIMEOUT = 120.0
"""Both racing runs are done with the record (the winner's canary waits 5 s)."""


@pytest.mark.cluster
@pytest.mark.ownership
def test_of_two_runs_racing_for_one_instance_id_on_the_api_server_one_wins():
    """The API server answers as the lock needs, and of two racing runs one wins."""
    from conformance.implementations import preparing

    clients = _local_clients()
    life_locks = str(clients.api.configuration.host)
    instance_id = f"wpc-own-race-{uuid.uuid4().hex[:6]}"
    runs = [
        (profiles.load("reference"), f"own-race-a-{instance_id[-6:]}"),
        (profiles.load("argo-workflows"), f"own-race-b-{instance_id[-6:]}"),
    ]
    reference = runs[0][0]
    owner = ownership.owner_of(
        reference,
        preparing.instance_of(reference, layout="legacy", instance_id=instance_id),
    )
    try:
        now = records.server_now(clients)
        holder = leases.holder("own-race-probe", now)
        assert records.create(clients, instance_id, owner=owner, holder=holder)
        # 409 AlreadyExists: never a replace
        assert not records.create(clients, instance_id, owner=owner, holder=holder)
        first = records.read(clients, instance_id)
        assert first.holder.session == "own-race-probe"
        assert records.replace(
            clients, instance_id, version=first.version, owner=owner, holder=None
        )
        # 409 Conflict on a stale resourceVersion, for a replace and a delete
        assert not records.replace(
            clients, instance_id, version=first.version, owner=owner, holder=holder
        )
        assert not records.delete(clients, instance_id, version=first.version)
        assert records.read(clients, instance_id).holder is None
        _forget(clients, instance_id)

        barrier = threading.Barrier(len(runs), timeout=RACE_TIMEOUT)
        won: dict[str, object] = {}
        refused: dict[str, str] = {}

        def run(profile, session):
            instance = preparing.instance_of(
                profile, layout="legacy", instance_id=instance_id
            )
            barrier.wait()
            try:
                won[session] = ownership.acquire(
                    clients,
                    instance=instance,
                    profile=profile,
                    session_id=session,
                    timeouts=Timeouts(),
                    life_locks=life_locks,
                )
            except ownership.InstanceTaken as exc:
                refused[session] = str(exc)

        threads = [threading.Thread(target=run, args=run_) for run_ in runs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(RACE_TIMEOUT)
        assert not any(thread.is_alive() for thread in threads)
        assert len(won) == len(refused) == 1, (won, refused)
        ((winner, _held),) = won.items()
        ((_loser, text),) = refused.items()
        assert records.read(clients, instance_id).holder.session == winner
        assert f"session {winner} on host" in text
    finally:
        _forget(clients, instance_id)


@pytest.mark.cluster
@pytest.mark.ownership
def test_a_conformance_run_is_refused_before_it_prepares_while_another_run_holds_the_id():
    """Even a run of the same implementation: it would rebuild and reinstall under the first."""
    from conformance.exitcodes import ExitCode

    clients = _local_clients()
    reference = profiles.load("reference")
    instance = reference.instance("legacy")
    session = f"own-holder-{uuid.uuid4().hex[:6]}"
    held = ownership.acquire(
        clients,
        instance=instance,
        profile=reference,
        session_id=session,
        timeouts=Timeouts(),
        life_locks=str(clients.api.configuration.host),
    )
    with leases.kept(clients, [held]):
        code, output = _hello_world("reference", "ownership-held")
    assert code == ExitCode.CLUSTER_REFUSED, output
    assert (
        "instance ID wpc-legacy is held by a WPC run that may still be running: "
        f"session {session} on host" in output
    )
    assert "it uses implementation 'reference' at ref 0.1.0" in output
    assert (
        "python -m conformance uninstall --implementation reference --layout legacy "
        "--instance-id wpc-legacy --provider local --cluster wpc --force" in output
    )
    assert "Preparing reference" not in output
    found = records.read(clients, instance.instance_id)
    assert found.holder is None, "the holder released its record at its end"
    assert found.owner.implementation == "reference"


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
    # An earlier run's record of the reference under side B's ID: taken before the
    # install (nothing serves the ID yet, so the canary passes), then released.
    held = ownership.acquire(
        clients,
        instance=instance,
        profile=reference,
        session_id="own-diff",
        timeouts=timeouts,
        life_locks=str(clients.api.configuration.host),
    )
    try:
        with preparing.installed(driver, instance):
            leases.release(clients, held)
            code, output = _cluster_run(argv)
            assert code == ExitCode.CLUSTER_REFUSED, output
            assert (
                "instance ID wpc-diff-b-legacy is served by implementation 'reference'"
                in output
            )
            assert (
                "python -m conformance uninstall --implementation reference --layout "
                "legacy --instance-id wpc-diff-b-legacy --provider local --cluster wpc"
                in output
            )
            _forget(clients, instance.instance_id)
            code, output = _cluster_run(argv)
            assert code == ExitCode.CLUSTER_REFUSED, output
            assert "already served by a controller WPC did not install" in output
    finally:
        _forget(clients, instance.instance_id)
    assert records.read(clients, instance.instance_id) is None
    assert records.read(clients, "wpc-diff-a-legacy") is None, (
        "the refused run left side A's record"
    )
    assert not list((tmp_path).glob("differential-*.yaml"))


def test_a_refused_run_leaves_no_record_it_created(monkeypatch):
    fresh = Instance(layout="initless", instance_id="wpc-new", namespace="wpc-new")
    refused_by_canary = Instance(layout="legacy", instance_id="wpc-x", namespace="x")

    def probe(clients, **kw):
        if kw["instance"] == refused_by_canary:
            raise ownership.InstanceTaken("a foreign controller processed the canary")

    monkeypatch.setattr(ownership, "_probe_unserved", probe)
    clients = fakerecords.clients()
    _installed_earlier(clients, _profile("reference"))
    for refused in (INSTANCE, refused_by_canary):
        with pytest.raises(ownership.InstanceTaken):
            ownership.acquire_all(
                clients,
                claims=[
                    (fresh, _profile("argo-workflows")),
                    (refused, _profile("argo-workflows")),
                ],
                session_id="s",
                timeouts=Timeouts(),
                life_locks=LIFE_LOCKS,
            )
        assert records.read(clients, "wpc-new") is None
        assert records.read(clients, "wpc-x") is None
    assert records.read(clients, "wpc-legacy").owner.implementation == "reference"
