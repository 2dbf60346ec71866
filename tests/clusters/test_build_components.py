"""We test `python -m clusters build-components` (make test builds kubectl with it).

Aspects: named components are built through `building.build_all` and their bin
directories printed; none named builds all; an unknown name exits 1 naming it and the
known ones before anything is built; its progress (a build's heartbeat) is logged at
INFO, as for every long verb, so `make test`'s CI log is not silent for the ten minutes
of a cold Kubernetes build.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from clusters import building
from clusters import cli


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[object]:
    calls: list[object] = []

    def build_all(settings, names=None):
        calls.append(names)
        return {n: tmp_path / n / "bin" for n in names or ["kubernetes", "etcd"]}

    monkeypatch.setattr(building, "build_all", build_all)
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path))
    return calls


def test_named_components_are_built_and_printed(builds, tmp_path, capsys):
    assert cli.main(["build-components", "kubernetes"]) == 0
    assert builds == [["kubernetes"]]
    assert capsys.readouterr().out == f"kubernetes {tmp_path / 'kubernetes' / 'bin'}\n"


def test_none_named_builds_all(builds):
    assert cli.main(["build-components"]) == 0
    assert builds == [None]


def test_an_unknown_name_is_refused_before_building(builds, capsys):
    assert cli.main(["build-components", "kubernetes", "kubectl"]) == 1
    assert builds == []
    err = capsys.readouterr().err
    assert "unknown component(s) kubectl; known: kubernetes, etcd" in err


@pytest.mark.parametrize(
    "verb", ["up", "build-components", "build-node-image", "host-deps", "docker-setup"]
)
def test_long_verbs_log_their_progress(verb):
    assert cli.log_level(verb, verbose=False) == logging.INFO


def test_quick_verbs_log_warnings_unless_verbose():
    assert cli.log_level("status", verbose=False) == logging.WARNING
    assert cli.log_level("status", verbose=True) == logging.INFO
