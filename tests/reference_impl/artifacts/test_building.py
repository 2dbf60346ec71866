"""Building the S3 server: settings, the Go build, evidence on failure.

We test these aspects:
- WPC_CACHE_DIR places the cache, the stamp and the binary by version, in the
  layout the cache has always had (components/<name>-<version>/bin/<binary>);
- the build requires exactly the pinned module, builds its main package
  statically and installs it under the pinned binary name;
- a failing command raises BuildError (an ArtifactError and a plumbing
  CommandFailed) with the command line, exit code and log; a missing `go` is
  a failure too;
- a stamped build is reused without running anything;
- the built server is static.
(The real compile is proved by `python -m reference_impl.artifacts build` and
the slow tests that run its output.)
"""

from __future__ import annotations

import pytest

from plumbing import gobuilding
from plumbing.errors import CommandFailed
from reference_impl.artifacts import building
from reference_impl.artifacts import pins
from reference_impl.artifacts.errors import ArtifactError
from reference_impl.artifacts.errors import BuildError


def test_settings_read_the_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("WPC_CACHE_DIR", str(tmp_path))
    settings = building.BuildSettings.from_env()
    name = f"{pins.SERVER_NAME}-{pins.SERVER_VERSION}"
    assert settings.component_dir == tmp_path / "components" / name
    assert settings.binary == tmp_path / "components" / name / "bin" / "versitygw"
    assert settings.work_dir == tmp_path / "work" / name
    assert settings.log_path == tmp_path / "logs" / f"build-{name}.log"
    assert not building.is_built(settings)


def test_the_build_is_the_pinned_server_built_statically():
    spec = building.SERVER
    assert spec.requires == ((pins.SERVER_MODULE, pins.SERVER_VERSION),)
    assert spec.replaces == ()
    assert spec.packages == (pins.SERVER_PACKAGE,)
    assert spec.static
    assert not spec.cgo
    assert dict(spec.outputs) == {"versitygw": pins.SERVER_BINARY}
    assert f"main.Version={pins.SERVER_VERSION}" in spec.ldflags


def test_a_missing_go_is_a_build_error_with_its_evidence(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    settings = building.BuildSettings(cache_dir=tmp_path)
    with pytest.raises(BuildError, match="exit code 127") as caught:
        building.build(settings)
    error = caught.value
    assert isinstance(error, ArtifactError)
    assert isinstance(error, CommandFailed)
    assert error.command[:2] == ["go", "mod"]
    assert error.log_path == settings.log_path
    assert "cannot start" in error.output
    assert not building.is_built(settings)


def test_a_stamped_build_is_reused_without_running_go(tmp_path, monkeypatch):
    settings = building.BuildSettings(cache_dir=tmp_path)
    settings.binary.parent.mkdir(parents=True)
    settings.binary.write_bytes(b"")
    (settings.component_dir / gobuilding.STAMP).write_text(pins.SERVER_VERSION)

    def no_build(*args, **kwargs):
        raise AssertionError("nothing should run for a stamped build")

    monkeypatch.setattr(gobuilding, "build", no_build)
    assert building.build(settings) == settings.binary


def test_the_built_server_is_static():
    settings = building.BuildSettings.from_env()
    if not building.is_built(settings):
        pytest.skip(
            "S3 server not built; run `python -m reference_impl.artifacts build`"
        )
    assert gobuilding.is_static(settings.binary) is True
