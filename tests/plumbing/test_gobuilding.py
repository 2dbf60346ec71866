"""We test these aspects of the Go-module builder (no network, no real go):

- the wrapper module requires and replaces the pinned modules;
- a stamped build is reused without running go; a forced one is redone;
- a local-module build runs go in that directory, with no wrapper;
- outputs are renamed, a non-static result is refused before the stamp;
- BuildSettings reads WPC_CACHE_DIR at run time.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from plumbing import gobuilding


def _fake_go(calls: list[tuple[list[str], Path | None]], payload: Path | None = None):
    def run(argv, *, log_path, env=None, cwd=None, timeout=None, error=None):
        calls.append((list(argv), cwd))
        if argv[:2] == ["go", "build"]:
            out = Path(argv[argv.index("-o") + 1])
            for pkg in argv[argv.index("-ldflags") + 2 :]:
                shutil.copy(payload or sys.executable, out / pkg.rsplit("/", 1)[-1])

    return run


def test_the_wrapper_module_requires_and_replaces_the_pins(tmp_path, monkeypatch):
    calls: list = []
    monkeypatch.setattr(gobuilding.commands, "run", _fake_go(calls))
    spec = gobuilding.GoBuild(
        name="k",
        version="v1.0.0",
        packages=("example.com/k/cmd/a",),
        requires=(("example.com/k", "v1.0.0"),),
        replaces=(("example.com/k/staging", "v0.1.0"),),
        outputs={"a": "renamed"},
    )
    bindir = gobuilding.build(spec, cache_dir=tmp_path)
    gomod = (tmp_path / "work" / "k-v1.0.0" / "go.mod").read_text()
    assert "\texample.com/k v1.0.0" in gomod
    assert "example.com/k/staging => example.com/k/staging v0.1.0" in gomod
    assert [c[0][:3] for c in calls] == [
        ["go", "mod", "tidy"],
        ["go", "build", "-trimpath"],
    ]
    assert (bindir / "renamed").is_file()
    assert gobuilding.is_built(spec, tmp_path)
    calls.clear()
    gobuilding.build(spec, cache_dir=tmp_path)
    assert calls == []
    gobuilding.build(spec, cache_dir=tmp_path, force=True)
    assert len(calls) == 2


def test_a_local_module_builds_in_its_directory_without_a_wrapper(
    tmp_path, monkeypatch
):
    calls: list = []
    monkeypatch.setattr(gobuilding.commands, "run", _fake_go(calls))
    src = tmp_path / "src"
    src.mkdir()
    spec = gobuilding.GoBuild(
        name="probe", version="abc", packages=("probe",), module_dir=src
    )
    bindir = gobuilding.build(spec, cache_dir=tmp_path / "cache")
    assert [c[1] for c in calls] == [src]
    assert (bindir / "probe").is_file()
    assert not (tmp_path / "cache" / "work").exists()


def test_a_dynamic_result_is_refused_before_the_stamp(tmp_path, monkeypatch):
    calls: list = []
    monkeypatch.setattr(gobuilding.commands, "run", _fake_go(calls))
    spec = gobuilding.GoBuild(
        name="s", version="v1", packages=("x/s",), requires=(("x", "v1"),), static=True
    )
    with pytest.raises(gobuilding.NotStatic, match="dynamically linked"):
        gobuilding.build(spec, cache_dir=tmp_path)
    assert not gobuilding.is_built(spec, tmp_path)


def test_is_static_tells_a_dynamic_python_apart():
    assert gobuilding.is_static(Path(sys.executable).resolve()) is False


def test_settings_read_the_cache_dir_at_run_time(monkeypatch, tmp_path):
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path))
    assert gobuilding.BuildSettings.from_env().cache_dir == tmp_path
    monkeypatch.delenv("WPC_CACHE_DIR")
    assert (
        gobuilding.BuildSettings.from_env().cache_dir == Path.home() / ".cache" / "wpc"
    )
