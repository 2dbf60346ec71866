"""We test how a measurement records the code it ran on (a scratch git repository):

- a clean checkout has its HEAD commit, no changes and no digest;
- an edited tracked file, or an untracked file git does not ignore, makes it dirty
  with a digest of the changes: the same changes give the same digest, other content
  another; an ignored file changes nothing;
- outside a checkout the commit is unknown and nothing counts as changed;
- the `measuredOn` JSON reads back to the same provenance, and the label names the
  short commit, the changes and the spec version.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conformance.report.scores import provenance
from conformance.report.scores.provenance import Provenance


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.test",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("reports/\n")
    (tmp_path / "a.py").write_text("A = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    return tmp_path


def test_a_clean_checkout_has_its_commit_and_no_changes(repo: Path) -> None:
    found = provenance.current("1.0", cwd=repo)
    assert found == Provenance(
        commit=git(repo, "rev-parse", "HEAD"),
        dirty=False,
        changes=None,
        spec_version="1.0",
    )


def test_changes_are_dirty_and_digested_by_content(repo: Path) -> None:
    (repo / "reports").mkdir()
    (repo / "reports" / "negative-controls.yaml").write_text("ignored\n")
    assert provenance.changes(repo) is None

    (repo / "a.py").write_text("A = 2\n")
    edited = provenance.current("1.0", cwd=repo)
    assert edited.dirty
    assert edited.changes is not None
    assert provenance.changes(repo) == edited.changes

    (repo / "new.py").write_text("B = 1\n")
    with_new = provenance.changes(repo)
    assert with_new not in (None, edited.changes)
    (repo / "new.py").write_text("B = 2\n")
    assert provenance.changes(repo) not in (None, edited.changes, with_new)

    (repo / "new.py").unlink()
    (repo / "a.py").write_text("A = 1\n")
    assert provenance.current("1.0", cwd=repo).dirty is False


def test_outside_a_checkout_the_commit_is_unknown(tmp_path: Path) -> None:
    found = provenance.current("1.0", cwd=tmp_path)
    assert (found.commit, found.dirty, found.changes) == ("unknown", False, None)


def test_the_json_reads_back_and_the_label_names_everything() -> None:
    found = Provenance(
        commit="0123456789abcdef" * 2 + "01234567",
        dirty=True,
        changes="feedface" * 8,
        spec_version="1.0",
    )
    assert Provenance.from_json(found.to_json()) == found
    assert found.to_json()["specVersion"] == "1.0"
    assert found.label() == (
        "commit 0123456789ab (uncommitted changes feedface) / spec 1.0"
    )
