"""We test that an input artifact's `mode` and `recurseMode` never change anything through a link.

Issue 29: the recursive chmod followed a link to a sibling's 0600 file and made
it 0777. Every entry of the artifact (files and directories) gets the mode; a
link to a file or a directory outside is skipped and its target keeps its mode;
a linked directory is not entered; a dangling link is skipped; an artifact that
is itself a link is refused; an entry that turns into a link after it was
checked is refused by the chmod itself (AT_SYMLINK_NOFOLLOW), never followed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.storage import modes


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A sibling of the artifact holding a 0600 file and a 0700 directory."""
    sibling = tmp_path / "secret"
    (sibling / "dir").mkdir(parents=True)
    (sibling / "dir" / "f").write_text("f")
    (sibling / "key").write_text("key")
    os.chmod(sibling / "key", 0o600)
    os.chmod(sibling / "dir" / "f", 0o600)
    os.chmod(sibling / "dir", 0o700)
    return sibling


@pytest.fixture
def art(tmp_path: Path, outside: Path) -> Path:
    art = tmp_path / "art"
    (art / "sub").mkdir(parents=True)
    (art / "sub" / "f").write_text("f")
    (art / "top").write_text("top")
    os.symlink("../secret/key", art / "k")
    os.symlink("../../secret/dir", art / "sub" / "d")
    os.symlink("sub/f", art / "in-tree")
    os.symlink("not-there", art / "dangling")
    return art


def test_recursive_mode_reaches_every_entry_and_nothing_through_links(art, outside):
    modes.set_mode(art, 0o777, recurse=True)
    for path in (art, art / "sub", art / "sub" / "f", art / "top"):
        assert mode_of(path) == 0o777, path
    assert mode_of(outside / "key") == 0o600
    assert mode_of(outside / "dir") == 0o700
    assert mode_of(outside / "dir" / "f") == 0o600
    assert os.readlink(art / "k") == "../secret/key"


def test_without_recurse_only_the_artifact_changes(art):
    before = mode_of(art / "top")
    modes.set_mode(art, 0o750, recurse=False)
    assert mode_of(art) == 0o750
    assert mode_of(art / "top") == before != 0o750


def test_an_artifact_that_is_a_link_is_refused(tmp_path, outside):
    link = tmp_path / "art"
    os.symlink(outside / "key", link)
    with pytest.raises(ArtifactError, match="art: it is a symbolic link"):
        modes.set_mode(link, 0o777, recurse=True)
    assert mode_of(outside / "key") == 0o600


def test_an_entry_that_became_a_link_after_its_check_is_refused(
    art, outside, monkeypatch
):
    # As if `k` had been swapped for a link between the check and the chmod.
    monkeypatch.setattr(modes, "_is_link", lambda *_: False)
    with pytest.raises(ArtifactError, match="without following a symbolic link"):
        modes.set_mode(art, 0o777, recurse=True)
    assert mode_of(outside / "key") == 0o600
