"""A kind cluster asleep in WPC's stopped engine still holds the machine.

CI failed on this (stop 33): a session killed with a kind cluster up left its
node containers in the engine's data root; the kind proofs started the engine,
kind's `on-failure:1` restart policy brought that cluster back, and `down` of the
proofs' own cluster rightly kept the engine for it, so "no daemon of ours" failed
with no word of why. The rule now finds the dormant cluster before `up` starts
anything, and `status` says what it is.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from clusters import docker
from clusters import kind
from clusters import operating
from clusters.docker.settings import DockerSettings
from clusters.errors import ProviderError
from clusters.kind import KindProvider
from clusters.kind import KindSettings
from clusters.kind.dormant import containers_dir
from clusters.kind.dormant import dormant_clusters
from clusters.machine import holding


def _record(s: DockerSettings, cid: str, labels: object) -> None:
    d = containers_dir(s) / cid
    d.mkdir(parents=True)
    (d / "config.v2.json").write_text(json.dumps({"Config": {"Labels": labels}}))


@pytest.fixture
def engine(tmp_path: Path) -> DockerSettings:
    return DockerSettings(state_root=tmp_path / "state", run_root=tmp_path / "run")


def test_node_containers_in_the_data_root_name_their_clusters(engine):
    assert dormant_clusters(engine) == []  # no data root yet
    _record(engine, "a1", {"io.x-k8s.kind.cluster": "wpc-kind"})
    _record(engine, "a2", {"io.x-k8s.kind.cluster": "wpc-kind"})
    _record(engine, "b1", {"io.x-k8s.kind.cluster": "other"})
    _record(engine, "c1", {"app": "not-kind"})
    _record(engine, "c2", None)
    (containers_dir(engine) / "torn").mkdir()
    (containers_dir(engine) / "torn" / "config.v2.json").write_text("{half")
    assert dormant_clusters(engine) == ["other", "wpc-kind"]


def test_an_external_engines_data_is_not_read(engine):
    _record(engine, "a1", {"io.x-k8s.kind.cluster": "wpc-kind"})
    external = DockerSettings(
        state_root=engine.state_root, run_root=engine.run_root, external="tcp://x:1"
    )
    assert dormant_clusters(external) == []


def test_a_stopped_engine_reports_its_dormant_clusters_as_holding(engine, monkeypatch):
    _record(engine, "a1", {"io.x-k8s.kind.cluster": "wpc-kind"})
    monkeypatch.setattr(docker, "answering", lambda s: False)
    assert kind.holding_clusters(engine) == ["wpc-kind"]
    assert kind.running_clusters(engine) == []


def test_up_of_another_cluster_refuses_and_names_the_dormant_one(
    engine, tmp_path, monkeypatch
):
    _record(engine, "a1", {"io.x-k8s.kind.cluster": "wpc-kind"})
    monkeypatch.setattr(docker, "answering", lambda s: False)
    monkeypatch.setattr(kind, "_selected", lambda s: engine)
    monkeypatch.setenv("WPC_STATE_DIR", str(tmp_path / "wpc-state"))
    assert [h.name for h in operating.discover_running()] == ["wpc-kind"]
    with pytest.raises(
        ProviderError, match=r"kind cluster 'wpc-kind'.*--provider kind --name wpc-kind"
    ):
        holding.claim(
            holding.holder_file(),
            holding.Holder(provider="kind", name="wpc-kind-proof"),
            running=operating.provider_running,
            discover=operating.discover_running,
        )


def test_status_of_a_dormant_cluster_says_it_comes_back_and_how_to_remove_it(
    engine, monkeypatch
):
    _record(engine, "a1", {"io.x-k8s.kind.cluster": "wpc-kind"})
    monkeypatch.setattr(docker, "answering", lambda s: False)
    provider = KindProvider(dataclasses.replace(KindSettings.from_env(), docker=engine))
    status = provider.status("wpc-kind")
    assert not status.running
    assert status.detail.startswith("dormant:")
    assert "down --provider kind --name wpc-kind" in status.detail
    assert not provider.status("other").detail.startswith("dormant:")
