"""Building the S3 server: settings, the wrapper module, evidence on failure.

We test these aspects:
- WPC_CACHE_DIR places the cache, the stamp and the binary by version;
- the wrapper module requires exactly the pinned module and imports its main;
- a failing command raises BuildError with the command line, exit code, the
  last 50 log lines and the log path; a missing program is a failure too;
- a stamped build is reused without running anything;
- `is_static` tells a static executable from a dynamic one.
(The real compile is proved by `python -m reference_impl.artifacts build` and
the slow tests that run its output.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reference_impl.artifacts import _proc
from reference_impl.artifacts import building
from reference_impl.artifacts import pins
from reference_impl.artifacts.errors import BuildError


def test_settings_read_the_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path))
    settings = building.BuildSettings.from_env()
    name = f"{pins.SERVER_NAME}-{pins.SERVER_VERSION}"
    assert settings.component_dir == tmp_path / "components" / name
    assert settings.binary == tmp_path / "components" / name / "bin" / "versitygw"
    assert settings.work_dir == tmp_path / "work" / name
    assert not building.is_built(settings)


def test_the_wrapper_module_requires_the_pinned_server(tmp_path):
    building._write_wrapper(tmp_path)
    go_mod = (tmp_path / "go.mod").read_text()
    assert f"require {pins.SERVER_MODULE} {pins.SERVER_VERSION}" in go_mod
    assert "replace" not in go_mod
    assert f'import _ "{pins.SERVER_PACKAGE}"' in (tmp_path / "tools.go").read_text()


def test_a_failing_command_raises_with_its_evidence(tmp_path):
    log = tmp_path / "build.log"
    script = "for i in $(seq 1 80); do echo line-$i; done; exit 3"
    with pytest.raises(BuildError) as caught:
        _proc.run(["sh", "-c", script], log_path=log)
    error = caught.value
    assert error.returncode == 3
    assert error.log_path == log
    assert len(error.log_tail) == 50
    assert error.log_tail[-1] == "line-80"
    assert "exit code 3: sh -c 'for i in" in str(error)
    assert str(log) in str(error)


def test_a_program_that_cannot_start_is_a_build_error(tmp_path):
    with pytest.raises(BuildError, match="exit code 127") as caught:
        _proc.run(["/nonexistent/go", "build"], log_path=tmp_path / "b.log")
    assert "cannot start" in caught.value.log_tail[-1]


def test_a_stamped_build_is_reused_without_running_go(tmp_path, monkeypatch):
    settings = building.BuildSettings(cache_dir=tmp_path)
    settings.binary.parent.mkdir(parents=True)
    settings.binary.write_bytes(b"")
    (settings.component_dir / building.STAMP).write_text(pins.SERVER_VERSION)

    def no_run(*args, **kwargs):
        raise AssertionError("nothing should run for a stamped build")

    monkeypatch.setattr(building, "run", no_run)
    assert building.build(settings) == settings.binary


def test_is_static_tells_the_dynamic_python_from_a_static_build():
    assert building.is_static(Path(sys.executable).resolve()) is False
    settings = building.BuildSettings.from_env()
    if building.is_built(settings):
        assert building.is_static(settings.binary) is True
