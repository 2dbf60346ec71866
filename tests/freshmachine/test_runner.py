"""The fresh-machine runner reads the README's own bootstrap block and runs it first.

We test these aspects: the block is the README's (`apt-get` and Go first on PATH,
which the later make targets need), a README without the marker or block is a
clear error naming the file, and the script runs the bootstrap, then each
target in order, each timed.
"""

from __future__ import annotations

import pytest

from clusters import docker
from clusters.docker import daemons
from clusters.docker import hostnet
from clusters.machine import processes
from tests.freshmachine import runner


def test_the_bootstrap_block_is_read_from_the_readme():
    block = runner.bootstrap_block(runner.README.read_text())
    assert block.startswith("apt-get update")
    assert "python3-venv" in block
    assert "make" in block.split()
    assert "/usr/local/go/bin" in block


def test_a_readme_without_the_block_is_an_error_naming_the_file():
    with pytest.raises(runner.FreshMachineError, match=r"README\.md: no line saying"):
        runner.bootstrap_block("# nothing here\n")
    with pytest.raises(runner.FreshMachineError, match="no ```sh block"):
        runner.bootstrap_block(f"{runner.BOOTSTRAP_MARK}\n\nno block\n")


def test_the_script_bootstraps_then_runs_each_target_in_order():
    text = runner.script("echo boot", ("lint", "unit-test"))
    boot = text.index("echo boot")
    lint = text.index("make lint")
    unit = text.index("make unit-test")
    assert text.startswith("set -eu")
    assert boot < lint < unit
    assert text.count("took $((") == 3


def test_cluster_targets_bring_the_cluster_down_on_the_way_out():
    plain = runner.script("echo boot", ("lint",))
    assert "trap '" not in plain
    text = runner.script("echo boot", ("conformance",))
    trap = text.index("trap '")
    assert "clusters down --provider local" in text[trap:]
    assert text.index("cp -a /src") < trap < text.index("make conformance")


def test_cluster_targets_refuse_to_start_beside_a_running_cluster(monkeypatch):
    monkeypatch.setattr(processes, "processes_under", lambda marker: [4242])
    with pytest.raises(runner.FreshMachineError, match=r"pids \[4242\]"):
        runner.refuse_a_running_cluster(("conformance",))
    runner.refuse_a_running_cluster(("lint", "unit-test"))  # no cluster: no check


def test_a_target_may_carry_make_variables_and_its_kind_cluster_comes_down():
    targets = ("chaos", "cluster-down", "chaos PROVIDER=kind CLUSTER=wpc-kind")
    text = runner.script("echo boot", targets)
    assert "make chaos PROVIDER=kind CLUSTER=wpc-kind;" in text
    trap = text[text.index("trap '") :]
    assert "clusters down --provider local" in trap
    assert "clusters down --provider kind --name wpc-kind" in trap
    assert runner.needs_cluster(("chaos PROVIDER=kind",))
    assert runner.kind_clusters(("chaos PROVIDER=kind",)) == ["wpc"]
    assert runner.kind_clusters(("chaos", "kind-test")) == []
    with pytest.raises(runner.FreshMachineError, match="CLUSTER='x;rm' is not"):
        runner.kind_clusters(("chaos PROVIDER=kind CLUSTER=x;rm",))
    assert not runner.needs_cluster(("",))


@pytest.fixture
def engine_calls(monkeypatch) -> list[str]:
    """What restore_engine did to the host's engine, in order (faked)."""
    calls: list[str] = []
    monkeypatch.setattr(docker, "teardown", lambda s: calls.append("teardown") or [])
    monkeypatch.setattr(daemons, "stop", lambda s: calls.append("stop"))
    monkeypatch.setattr(docker, "setup", lambda s: calls.append("setup"))
    return calls


def test_an_engine_the_run_started_is_stopped_after_it(engine_calls):
    note = runner.restore_engine(docker.DockerSettings.from_env(), started=True)
    assert engine_calls == ["teardown"]
    assert note.startswith("stopped")


def test_an_engine_that_lost_its_chains_in_the_run_is_restarted(
    engine_calls, monkeypatch
):
    # The machine's kind stage removed Docker's chains from the shared network
    # namespace: before the fix the host engine ran on without them, and the next
    # `docker network create` (kind create cluster) failed.
    monkeypatch.setattr(hostnet, "docker_rules", list)
    note = runner.restore_engine(docker.DockerSettings.from_env(), started=False)
    assert engine_calls == ["stop", "setup"]
    assert "restarted" in note


def test_an_engine_that_ran_before_with_its_chains_is_left_alone(
    engine_calls, monkeypatch
):
    monkeypatch.setattr(hostnet, "docker_rules", lambda: ["-N DOCKER"])
    runner.restore_engine(docker.DockerSettings.from_env(), started=False)
    assert engine_calls == []
