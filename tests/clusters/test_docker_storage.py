"""An engine that fell back to vfs is refused with the evidence of why."""

from __future__ import annotations

from pathlib import Path

import pytest

from clusters.docker import storage
from clusters.docker.settings import DockerSettings
from clusters.errors import ProviderError

FALLBACK_LOG = """\
time="t" level=error msg="failed to mount overlay: invalid argument" storage-driver=overlay2
time="t" level=error msg="exec: \\"fuse-overlayfs\\": not found" storage-driver=fuse-overlayfs
time="t" level=info msg="Loading containers: done."
"""


def _settings(tmp_path: Path) -> DockerSettings:
    return DockerSettings(state_root=tmp_path / "state", run_root=tmp_path / "run")


@pytest.mark.parametrize("driver", ["overlay2", "btrfs", "zfs"])
def test_drivers_that_mount_are_accepted(tmp_path: Path, driver: str) -> None:
    assert storage.refusal(_settings(tmp_path), driver) is None


def test_vfs_is_refused_naming_the_data_root_its_file_system_and_dockerds_words(
    tmp_path: Path,
) -> None:
    s = _settings(tmp_path)
    s.log_dir.mkdir(parents=True)
    (s.log_dir / "dockerd.log").write_text(FALLBACK_LOG)
    why = storage.refusal(s, "vfs")
    assert why is not None
    assert f"data root {s.state_root / 'data'} (file system " in why
    assert storage.file_system(tmp_path) in why
    assert "failed to mount overlay: invalid argument" in why
    assert "Loading containers" not in why
    assert str(s.log_dir / "dockerd.log") in why


def test_vfs_without_a_log_still_says_where_the_log_should_be(tmp_path: Path) -> None:
    why = storage.refusal(_settings(tmp_path), "vfs")
    assert why is not None
    assert "could not read" in why


def test_the_file_system_of_a_path_not_made_yet_is_its_parents(tmp_path: Path) -> None:
    assert storage.file_system(tmp_path / "a" / "b") == storage.file_system(tmp_path)
    assert storage.file_system(tmp_path) not in ("", "unknown")


def test_ensure_usable_raises_on_vfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage, "driver", lambda s: "vfs")
    with pytest.raises(ProviderError, match="fell back to the 'vfs' storage driver"):
        storage.ensure_usable(_settings(tmp_path))
    monkeypatch.setattr(storage, "driver", lambda s: "overlay2")
    storage.ensure_usable(_settings(tmp_path))
