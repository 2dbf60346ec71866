"""We test which kubectl the manifests tests use (tests/kubectl.py).

Aspects: the project's own build wins once its stamp says it finished; an unfinished
build falls back to PATH; neither gives None and a reason naming the built path and
the command that builds it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clusters import pins
from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings
from tests import kubectl


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildSettings:
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    return BuildSettings(cache_dir=tmp_path / "cache")


def test_the_finished_build_comes_first(settings, tmp_path):
    own = executable(kubectl.built(settings))
    executable(tmp_path / "path" / "kubectl")
    assert own == (
        gobuilding.component_dir(settings.cache_dir, "kubernetes", pins.KUBERNETES)
        / "bin"
        / "kubectl"
    )
    (own.parents[1] / gobuilding.STAMP).write_text(pins.KUBERNETES)
    assert kubectl.find(settings) == own


def test_an_unfinished_build_falls_back_to_path(settings, tmp_path):
    executable(kubectl.built(settings))
    on_path = executable(tmp_path / "path" / "kubectl")
    assert kubectl.find(settings) == on_path


def test_neither_is_none_with_a_reason_saying_how_to_build_it(settings):
    assert os.environ["PATH"].endswith("path")
    assert kubectl.find(settings) is None
    reason = kubectl.missing_reason(settings)
    assert str(kubectl.built(settings)) in reason
    assert "python -m clusters build-components kubernetes" in reason
