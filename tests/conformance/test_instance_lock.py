"""We test that an instance ID's record is a lock between runs, on a fake API server.

Runs go through `preparing.prepare_run` and `python -m conformance uninstall`
with everything but the record faked (no builds, no installs, no canary): a
second run of another implementation, or of the same profile at another ref,
is refused before it prepares; uninstall refuses another owner's record, and
a record a live run holds unless forced; a run whose owner is proven dead (its
lease ran out, or its process is gone from this host) takes the record over;
of two runs racing to create the record, exactly one wins. The fake answers
conflicts as the API server does (`fakerecords`); the cluster proofs in
test_ownership.py run the race on a real one.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import ClusterRefused
from conformance.exitcodes import ExitCode
from conformance.harness.cluster.timeouts import Timeouts
from conformance.implementations import driving
from conformance.implementations import preparing
from conformance.implementations import profiles
from conformance.implementations.contexts import ClusterChoice
from tests.conformance import fakerecords
from wpc import suite_cli as entry

RECORD = "wpc-instance-wpc-legacy"
CLUSTER = ClusterChoice(
    kubeconfig=None, provider="local", cluster="wpc", allow_foreign=False
)
FORCE_COMMAND = (
    "python -m conformance uninstall --implementation {name} --layout legacy "
    "--instance-id wpc-legacy --provider local --cluster wpc --force"
)
RACE_TIMEOUT = 30.0
"""Both racing runs reach their first read of the record (a barrier's bound)."""


class QuietLeases:
    """`leases` as `preparing` uses it, with keepers that never beat.

    The test plays the clock (`FakeCore.advance`) and decides when a run ends
    (`end_runs`); a renewal thread would race it.
    """

    def __init__(self) -> None:
        self.keepers: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        from conformance.implementations import leases

        if name != "hold_for_life":
            return getattr(leases, name)

        def hold_for_life(clients: Any, held: Any) -> Any:
            keeper = leases.Keeper(clients, held)
            self.keepers.append(keeper)
            return keeper

        return hold_for_life

    def end_runs(self) -> None:
        """What every run does at its end: release what it holds."""
        for keeper in self.keepers:
            keeper.release()


class Cluster:
    """A fake cluster for `prepare_run`: every step faked but the instance record."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        self.clients = fakerecords.clients()
        self.core: fakerecords.FakeCore = self.clients.core
        self.did: list[str] = []
        self.tmp_path = tmp_path
        self.leases = QuietLeases()
        self.during_prepare: dict[str, Any] = {}
        did = self.did
        monkeypatch.setattr(
            preparing, "locate_cluster", lambda cluster: ("/k", "kubectl")
        )
        monkeypatch.setattr(preparing.kube, "connect", lambda path: self.clients)
        monkeypatch.setattr(
            preparing, "check_marker", lambda clients, allow_foreign: {}
        )
        monkeypatch.setattr(
            preparing.locking, "hold_for_life", lambda name, cluster: None
        )
        monkeypatch.setattr(
            preparing.sweeping, "sweep_dead_runs", lambda *a, **kw: None
        )
        monkeypatch.setattr(preparing, "load_tools_image", lambda cluster: None)
        # The prepare lock is real (flock), in a directory of the test's own.
        monkeypatch.setattr(
            preparing.locking, "default_directory", lambda: tmp_path / "locks"
        )
        monkeypatch.setattr(preparing, "environment", lambda *a, **kw: {})
        monkeypatch.setattr(preparing, "image_digests", lambda *a, **kw: {})
        monkeypatch.setattr(preparing.images, "loaded_digests", lambda *a, **kw: {})
        monkeypatch.setattr(preparing, "leases", self.leases, raising=False)
        monkeypatch.setattr(driving.Driver, "unsupported_layouts", lambda self: {})
        monkeypatch.setattr(driving.Driver, "describe", lambda self: "")

        def prepare(driver: driving.Driver, layouts: tuple[str, ...]) -> None:
            did.append(f"prepare {_label(driver.profile)}")
            hook = self.during_prepare.pop(_label(driver.profile), None)
            if hook is not None:
                hook()

        monkeypatch.setattr(driving.Driver, "prepare", prepare)
        monkeypatch.setattr(
            driving.Driver,
            "install",
            lambda self, instances: did.append(f"install {_label(self.profile)}"),
        )
        monkeypatch.setattr(
            driving.Driver,
            "control",
            lambda self, kind, instance, **extra: did.append(
                f"{kind} {_label(self.profile)} {instance.instance_id}"
            ),
        )
        monkeypatch.setattr(
            preparing.ownership,
            "_probe_unserved",
            lambda clients, **kw: did.append(f"canary {kw['instance'].instance_id}"),
        )

    def run(self, profile: profiles.Profile) -> Any:
        """One run's preparation (legacy layout only)."""
        return preparing.prepare_run(
            cluster=CLUSTER,
            profile=profile,
            layouts=("legacy",),
            skip_install=False,
            log_dir=self.tmp_path,
            timeouts=Timeouts(),
        )

    def record(self) -> dict[str, str]:
        """The record of wpc-legacy as stored."""
        return self.core.data(RECORD)


def _label(profile: profiles.Profile) -> str:
    ref = profile.variables.get("ref", "")
    return f"{profile.name}@{ref}" if ref else profile.name


def _upstream(ref: str) -> profiles.Profile:
    return profiles.load("argo-workflows", variables={"ref": ref})


def _uninstall(name: str, *extra: str) -> int:
    return entry.main(
        [
            "uninstall",
            "--implementation",
            name,
            "--layout",
            "legacy",
            "--provider",
            "local",
            "--cluster",
            "wpc",
            *extra,
        ]
    )


def test_a_second_run_of_another_implementation_is_refused_before_it_prepares(
    monkeypatch, tmp_path
):
    cluster = Cluster(monkeypatch, tmp_path)
    refusals: list[str] = []

    def second_run() -> None:
        with pytest.raises(ClusterRefused) as info:
            cluster.run(_upstream("v4.1.2"))
        refusals.append(str(info.value))

    cluster.during_prepare["reference"] = second_run
    cluster.run(profiles.load("reference"))
    assert cluster.did == [
        "canary wpc-legacy",
        "prepare reference",
        "install reference",
    ]
    (text,) = refusals
    record = cluster.record()
    assert record["implementation"] == "reference"
    assert f"session {record['session']}" in text
    assert "implementation 'reference' at ref 0.1.0" in text
    assert "'argo-workflows' at ref v4.1.2" in text
    assert text.endswith(FORCE_COMMAND.format(name="reference"))


def test_the_same_profile_at_another_ref_is_another_owner(monkeypatch, tmp_path):
    cluster = Cluster(monkeypatch, tmp_path)
    refusals: list[str] = []

    def other_ref() -> None:
        with pytest.raises(ClusterRefused) as info:
            cluster.run(_upstream("v4.1.1"))
        refusals.append(str(info.value))

    cluster.during_prepare["argo-workflows@v4.1.2"] = other_ref
    cluster.run(_upstream("v4.1.2"))
    cluster.leases.end_runs()
    other_ref()  # the first run is over; what it installed stays installed
    held, installed = refusals
    assert "held by a WPC run that may still be running" in held
    assert "'argo-workflows' at ref v4.1.2" in held
    assert "served by implementation 'argo-workflows' at ref v4.1.2" in installed
    assert "this run would install 'argo-workflows' at ref v4.1.1" in installed
    assert installed.endswith(
        "python -m conformance uninstall --implementation argo-workflows --layout "
        "legacy --instance-id wpc-legacy --provider local --cluster wpc"
    )
    assert cluster.did == [
        "canary wpc-legacy",
        "prepare argo-workflows@v4.1.2",
        "install argo-workflows@v4.1.2",
    ]
    assert cluster.record()["ref"] == "v4.1.2"
    cluster.run(_upstream("v4.1.2"))  # the same owner again: reused, no canary
    assert cluster.did[3:] == [
        "prepare argo-workflows@v4.1.2",
        "install argo-workflows@v4.1.2",
    ]


def test_uninstall_refuses_another_owners_record_and_a_live_runs_unless_forced(
    monkeypatch, tmp_path, capsys, caplog
):
    cluster = Cluster(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)  # uninstall logs under reports/
    cluster.run(profiles.load("reference"))
    session = cluster.record().get("session")
    cluster.did.clear()

    assert _uninstall("argo-workflows") == ExitCode.CLUSTER_REFUSED
    said = capsys.readouterr().err
    assert "was installed by implementation 'reference' at ref 0.1.0" in said
    assert said.rstrip().endswith(
        "python -m conformance uninstall --implementation reference --layout legacy "
        "--instance-id wpc-legacy --provider local --cluster wpc"
    )

    assert _uninstall("reference") == ExitCode.CLUSTER_REFUSED
    said = capsys.readouterr().err
    assert f"held by a WPC run that may still be running: session {session}" in said
    assert said.rstrip().endswith(FORCE_COMMAND.format(name="reference"))
    assert cluster.did == []
    assert cluster.record()["session"] == session

    assert _uninstall("reference", "--force") == 0
    assert cluster.did == ["uninstall reference wpc-legacy"]
    assert RECORD not in cluster.core.maps
    assert f"--force: taking over instance ID wpc-legacy from session {session}" in (
        caplog.text
    )


def test_a_run_takes_the_record_over_once_its_owner_is_proven_dead(
    monkeypatch, tmp_path, caplog
):
    cluster = Cluster(monkeypatch, tmp_path)
    cluster.run(profiles.load("reference"))  # then dies: never renews, never releases
    dead = cluster.record().get("session")
    with pytest.raises(ClusterRefused, match=f"session {dead} on host"):
        cluster.run(profiles.load("reference"))
    from conformance.implementations import leases

    cluster.core.advance(leases.LEASE_SECONDS - 1)
    with pytest.raises(ClusterRefused, match=f"session {dead} on host"):
        cluster.run(profiles.load("reference"))
    cluster.core.advance(2)
    context = cluster.run(profiles.load("reference"))
    assert cluster.record()["session"] == context.session_id != dead
    assert f"Taking over instance ID wpc-legacy from session {dead}" in caplog.text
    assert "its lease ran out" in caplog.text
    assert cluster.did == [
        "canary wpc-legacy",
        "prepare reference",
        "install reference",
        "prepare reference",
        "install reference",
    ]


def test_a_run_killed_on_this_host_is_dead_at_once(monkeypatch, tmp_path, caplog):
    from conformance.harness.instances import locking

    cluster = Cluster(monkeypatch, tmp_path)
    monkeypatch.setattr(locking, "default_directory", lambda: tmp_path / "locks")
    cluster.run(profiles.load("reference"))
    dead = cluster.record().get("session", "missing")
    # What a killed run leaves: its life lock's file, which nothing holds.
    path = locking.lock_path(
        locking.session_lock_name(dead), cluster="https://192.0.2.2:6443"
    )
    path.parent.mkdir(mode=0o700, exist_ok=True)  # the prepare lock made it
    path.write_text("pid 1\n")
    context = cluster.run(profiles.load("reference"))
    assert cluster.record().get("session") == context.session_id
    assert "is gone from this host" in caplog.text


def test_of_two_runs_racing_to_create_the_record_exactly_one_wins(
    monkeypatch, tmp_path
):
    cluster = Cluster(monkeypatch, tmp_path)
    barrier = threading.Barrier(2, timeout=RACE_TIMEOUT)
    first_read = threading.local()

    def both_read_before_either_writes(name: str) -> None:
        if not getattr(first_read, "done", False):
            first_read.done = True
            barrier.wait()

    cluster.core.after_read = both_read_before_either_writes
    won: dict[str, Any] = {}
    refused: dict[str, str] = {}

    def run(profile: profiles.Profile) -> None:
        try:
            won[profile.name] = cluster.run(profile)
        except ClusterRefused as exc:
            refused[profile.name] = str(exc)

    threads = [
        threading.Thread(target=run, args=(profile,))
        for profile in (profiles.load("reference"), _upstream("v4.1.2"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(RACE_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads)
    assert len(won) == len(refused) == 1, (won, refused)
    ((winner, context),) = won.items()
    ((_loser, text),) = refused.items()
    record = cluster.record()
    assert record["implementation"] == winner
    assert record.get("session") == context.session_id
    assert f"session {context.session_id}" in text
    assert [line for line in cluster.did if line.startswith("prepare")] == [
        f"prepare {_label(context_profile(winner))}"
    ]


def context_profile(name: str) -> profiles.Profile:
    return profiles.load("reference") if name == "reference" else _upstream("v4.1.2")


def test_a_run_prepares_holding_the_hosts_prepare_lock(monkeypatch, tmp_path):
    """Two runs side by side (`wpc qualify`'s builds) build into one cache: one at a time."""
    cluster = Cluster(monkeypatch, tmp_path)
    folder = tmp_path / "locks"
    held: list[bool] = []

    def another_run_tries_the_lock() -> None:
        (path,) = folder.glob(f"*-{preparing.locking.PREPARE}.lock")
        fd = os.open(path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)

    cluster.during_prepare["reference"] = another_run_tries_the_lock
    cluster.run(profiles.load("reference"))
    assert held == [True]
    assert "prepare reference" in cluster.did
    (path,) = folder.glob("*-prepare.lock")
    fd = os.open(path, os.O_RDWR)  # released once the run has prepared
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
