"""We test these aspects of building upstream Argo from a source tree, with real git:

- a directory that is not the argo-workflows/v4 module, nor the /v3 path v4.0.0
  and v4.0.1 carry, is refused, naming its go.mod;
- a /v3 tree (v4.0.0) is accepted, and its description names the module, while
  a /v4 tree's description reads as it always did;
- a missing directory, a --ref without git, an unknown ref are clear errors;
- a git repository at a ref is exported once into the cache and described by its tag;
- a work tree without --ref builds in place, keyed by commit, and by a digest when dirty;
- a plain directory is keyed by a digest of its Go sources;
- the source comes from the flag, else WPC_ARGO_SOURCE.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.implementations.upstream import pins
from conformance.implementations.upstream import sources

GOMOD = f"module {pins.MODULE}\n\ngo 1.26.0\n"
GOMOD_V3 = "module github.com/argoproj/argo-workflows/v3\n\ngo 1.24.10\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "argo"
    (repo / "cmd" / "argoexec").mkdir(parents=True)
    (repo / "go.mod").write_text(GOMOD)
    (repo / "cmd" / "argoexec" / "main.go").write_text(
        "package main\n\nfunc main() {}\n"
    )
    _git(repo.parent, "init", "-q", str(repo))
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    _git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-qm",
        "one",
    )
    _git(repo, "tag", "v4.1.2")
    return repo


def test_a_tree_of_another_module_is_refused_naming_its_go_mod(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/other\n")
    with pytest.raises(
        DataError, match=r"go.mod: module example.com/other, not github.com/argoproj"
    ):
        sources.resolve(tmp_path, ref=None, cache_dir=tmp_path / "cache")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match="not an Argo Workflows source tree"):
        sources.resolve(empty, ref=None, cache_dir=tmp_path / "cache")


@pytest.mark.parametrize(
    "module", ["github.com/argoproj/argo-workflows", "github.com/argoproj/argo/v2"]
)
def test_argo_trees_older_than_v4_are_refused_too(tmp_path, module):
    (tmp_path / "go.mod").write_text(f"module {module}\n\ngo 1.21\n")
    with pytest.raises(
        DataError,
        match=rf"module {module}, not {pins.MODULES[0]} or {pins.MODULES[1]}: "
        "only Argo Workflows v4",
    ):
        sources.resolve(tmp_path, ref=None, cache_dir=tmp_path / "cache")


def test_a_v3_module_tree_at_a_ref_is_accepted_and_named_in_its_description(
    tmp_path, repo
):
    (repo / "go.mod").write_text(GOMOD_V3)
    _git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-qam",
        "v3",
    )
    _git(repo, "tag", "v4.0.0")
    commit = _git(repo, "rev-parse", "HEAD").strip()
    source = sources.resolve(repo, ref="v4.0.0", cache_dir=tmp_path / "cache")
    assert source.module == "github.com/argoproj/argo-workflows/v3"
    assert source.describe == (
        f"v4.0.0 (commit {commit[:12]}, module github.com/argoproj/argo-workflows/v3)"
    )
    v4 = sources.resolve(repo, ref="v4.1.2", cache_dir=tmp_path / "cache")
    assert v4.module == pins.MODULE
    assert "module" not in v4.describe
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "go.mod").write_text(GOMOD_V3)
    tree = sources.resolve(plain, ref=None, cache_dir=tmp_path)
    assert tree.describe.endswith(", module github.com/argoproj/argo-workflows/v3)")


def test_missing_directories_refs_without_git_and_unknown_refs_are_named(
    tmp_path, repo
):
    with pytest.raises(DataError, match="no such source directory"):
        sources.resolve(tmp_path / "nope", ref=None, cache_dir=tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "go.mod").write_text(GOMOD)
    with pytest.raises(DataError, match="needs a git repository"):
        sources.resolve(plain, ref="v4.1.2", cache_dir=tmp_path)
    with pytest.raises(DataError, match=r"no commit named 'v9\.9\.9'"):
        sources.resolve(repo, ref="v9.9.9", cache_dir=tmp_path)


def test_a_ref_is_exported_once_into_the_cache_and_described_by_its_tag(tmp_path, repo):
    cache = tmp_path / "cache"
    commit = _git(repo, "rev-parse", "HEAD").strip()
    source = sources.resolve(repo, ref="v4.1.2", cache_dir=cache)
    assert source.directory == cache / "src" / f"argo-workflows-{commit[:12]}"
    assert (source.directory / "cmd" / "argoexec" / "main.go").is_file()
    assert (source.key, source.version, source.commit, source.dirty) == (
        commit[:12],
        "v4.1.2",
        commit,
        False,
    )
    assert source.describe == f"v4.1.2 (commit {commit[:12]})"
    (source.directory / "marker").write_text("kept")
    again = sources.resolve(repo, ref="v4.1.2", cache_dir=cache)
    assert (again.directory / "marker").read_text() == "kept"  # not exported twice


def test_a_bare_repository_works_with_a_ref(tmp_path, repo):
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    source = sources.resolve(bare, ref="v4.1.2", cache_dir=tmp_path / "cache")
    assert source.version == "v4.1.2"
    assert (source.directory / "go.mod").read_text() == GOMOD


def test_a_work_tree_builds_in_place_keyed_by_commit_and_by_digest_when_dirty(
    tmp_path, repo
):
    commit = _git(repo, "rev-parse", "HEAD").strip()
    clean = sources.resolve(repo, ref=None, cache_dir=tmp_path)
    assert (clean.directory, clean.key, clean.dirty) == (repo, commit[:12], False)
    (repo / "cmd" / "argoexec" / "main.go").write_text(
        "package main\n\nfunc main() { println() }\n"
    )
    dirty = sources.resolve(repo, ref=None, cache_dir=tmp_path)
    assert dirty.dirty
    assert dirty.key.startswith(f"{commit[:12]}-dirty-")
    assert dirty.version == "v4.1.2-dirty"
    assert "uncommitted changes" in dirty.describe


def test_a_plain_directory_is_keyed_by_its_go_sources(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "go.mod").write_text(GOMOD)
    first = sources.resolve(plain, ref=None, cache_dir=tmp_path)
    (plain / "main.go").write_text("package main\n")
    second = sources.resolve(plain, ref=None, cache_dir=tmp_path)
    assert first.key.startswith("tree-")
    assert first.key != second.key
    assert second.version == "unknown"


def test_the_flag_wins_over_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(sources.SOURCE_ENV, str(tmp_path / "from-env"))
    assert sources.from_env("/from/flag") == Path("/from/flag")
    assert sources.from_env("") == tmp_path / "from-env"
    monkeypatch.delenv(sources.SOURCE_ENV)
    assert sources.from_env("") is None
