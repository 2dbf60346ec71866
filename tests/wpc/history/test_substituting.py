"""We test `--substitute-built` against a real (tiny) git repository and a fake cache:

- git's answers: a tag's commit (annotated tags peeled), every tag, whether a
  commit is in a tag, and the commits between two tags; a ref that does not
  exist and a directory that is no repository are errors naming them;
- a needed tag that is built is kept; one that is not is replaced by the
  closest built tag on the same side of the fix: for before, the last tag
  with the bug or a descendant of it holding neither the fix nor a backport
  (an older tag lacks the fix too but is refused, with the reason), for
  after, one holding the fix or a backport; with no built tag on its side it
  is kept (to be built);
- each replacement is recorded with its distance and reason, and the plan
  then runs each tag once and marks which are built;
- "built" is exactly the builder's stamp for the commit's cache key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.implementations.upstream import building
from conformance.implementations.upstream import sources
from plumbing import gobuilding
from tests.wpc.history.builders import GitRepo
from tests.wpc.history.builders import fix
from tests.wpc.history.builders import history_of
from wpc.history import caching
from wpc.history import plans
from wpc.history import proving
from wpc.history import substituting
from wpc.history.ancestry import GitRepository
from wpc.history.plans import Need


@dataclass
class Tree:
    """main: v1.0.0 - F (the fix) - x (v1.1.0) - G (fix two, v1.2.0).

    Release lines: v1.0.1 = v1.0.0 + B (F backported); v1.1.1 = v1.1.0 + p (no G).
    """

    repo: GitRepository
    fix_commit: str
    backport: str
    second_fix: str


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    git = GitRepo(tmp_path / "argo")
    git.commit("base", tag="v1.0.0")
    fix_commit = git.commit("fix: the bug")
    git.commit("more", tag="v1.1.0")
    second = git.commit("fix: another bug", tag="v1.2.0")
    git.git("checkout", "--quiet", "-b", "release-1.0", "v1.0.0")
    backport = git.commit("fix: the bug (cherry-pick)", tag="v1.0.1")
    git.git("checkout", "--quiet", "-b", "release-1.1", "v1.1.0")
    git.commit("a patch that is not fix two", tag="v1.1.1")
    return Tree(GitRepository(git.path), fix_commit, backport, second)


def fixes(tree: Tree):
    return history_of(
        fix(
            "one",
            commit=tree.fix_commit,
            before="v1.0.0",
            after="v1.1.0",
            backports=((tree.backport, "v1.0.0", "v1.0.1"),),
        ),
        fix("two", commit=tree.second_fix, before="v1.1.0", after="v1.2.0"),
    ).fixes


def test_git_answers_tags_commits_ancestry_and_distance(tree: Tree):
    repo = tree.repo
    repo.check()
    tags = repo.tags()
    assert set(tags) == {"v1.0.0", "v1.0.1", "v1.1.0", "v1.1.1", "v1.2.0"}
    assert tags["v1.2.0"] == tree.second_fix == repo.commit("v1.2.0")
    assert repo.is_ancestor(tree.fix_commit, "v1.1.0")
    assert not repo.is_ancestor(tree.fix_commit, "v1.0.1")
    assert repo.is_ancestor(tree.backport, "v1.0.1")
    assert repo.distance("v1.1.0", "v1.0.0") == 2
    assert repo.distance("v1.1.0", "v1.0.1") == 3


def test_a_missing_ref_and_a_non_repository_are_named(tree: Tree, tmp_path: Path):
    with pytest.raises(DataError, match=r"no commit named 'v9.9.9'"):
        tree.repo.commit("v9.9.9")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(DataError, match=rf"--source {plain}: not a git repository"):
        GitRepository(plain).check()
    with pytest.raises(DataError, match=r"no such directory"):
        GitRepository(tmp_path / "nowhere").check()


def test_after_takes_the_closest_built_tag_holding_the_fix(tree: Tree):
    one, _ = fixes(tree)
    need = Need("one", plans.AFTER, "v1.1.0")
    used, swaps = substituting.choose([one], [need], ["v1.0.0", "v1.2.0"], tree.repo)
    assert used[need] == "v1.2.0"
    assert [(s.needed, s.used, s.distance) for s in swaps] == [("v1.1.0", "v1.2.0", 1)]
    assert tree.fix_commit[:12] in swaps[0].reason


def test_after_accepts_a_backport(tree: Tree):
    one, _ = fixes(tree)
    need = Need("one", plans.AFTER, "v1.1.0")
    used, swaps = substituting.choose([one], [need], ["v1.0.0", "v1.0.1"], tree.repo)
    assert used[need] == "v1.0.1"
    assert tree.backport[:12] in swaps[0].reason


def test_before_refuses_tags_holding_the_fix_or_a_backport(tree: Tree):
    one, _ = fixes(tree)
    need = Need("one", plans.BEFORE, "v0.9.0")
    used, swaps = substituting.choose(
        [one], [need], ["v1.0.1", "v1.1.0", "v1.2.0"], tree.repo
    )
    assert used[need] == "v0.9.0"  # nothing built on its side: built by the run
    assert swaps == ()


def test_before_refuses_an_older_tag_without_the_fix_and_says_why(tree: Tree):
    _, two = fixes(tree)
    need = Need("two", plans.BEFORE, "v1.1.0")
    assert substituting.refusal(two, plans.BEFORE, "v1.0.0", tree.repo) == (
        "v1.0.0 does not descend from v1.1.0 (the last tag with the bug): it is "
        "older or on another line, so the bug may not be in it"
    )
    used, swaps = substituting.choose([two], [need], ["v1.0.1", "v1.0.0"], tree.repo)
    # neither is sure to have the bug: the run builds v1.1.0
    assert used[need] == "v1.1.0"
    assert swaps == ()


def test_before_takes_a_descendant_of_the_last_tag_with_the_bug(tree: Tree):
    _, two = fixes(tree)
    need = Need("two", plans.BEFORE, "v1.1.0")
    assert substituting.refusal(two, plans.BEFORE, "v1.1.1", tree.repo) is None
    used, swaps = substituting.choose([two], [need], ["v1.0.0", "v1.1.1"], tree.repo)
    assert used[need] == "v1.1.1"
    assert swaps[0].side == plans.BEFORE
    assert swaps[0].reason == (
        "v1.1.1 is built, descends from v1.1.0 (the last tag with the bug) and "
        f"contains none of the fix's commits ({tree.second_fix[:12]})"
    )


def test_each_side_refuses_the_other_sides_tags_with_the_reason(tree: Tree):
    one, two = fixes(tree)
    assert substituting.refusal(two, plans.BEFORE, "v1.2.0", tree.repo) == (
        f"v1.2.0 contains the fix ({tree.second_fix[:12]}): it no longer has the bug"
    )
    assert substituting.refusal(one, plans.AFTER, "v1.0.0", tree.repo) == (
        "v1.0.0 contains none of the fix's commits "
        f"({tree.fix_commit[:12]}, {tree.backport[:12]})"
    )
    assert substituting.refusal(one, plans.BEFORE, "v1.0.0", tree.repo) is None
    assert substituting.refusal(one, plans.AFTER, "v1.0.1", tree.repo) is None


def test_a_built_needed_tag_is_never_replaced(tree: Tree):
    one, _ = fixes(tree)
    need = Need("one", plans.AFTER, "v1.1.0")
    used, swaps = substituting.choose([one], [need], ["v1.1.0", "v1.2.0"], tree.repo)
    assert used[need] == "v1.1.0"
    assert swaps == ()


def stamp(cache: Path, commit: str) -> None:
    spec = gobuilding.GoBuild(
        name="argo-workflows", version=sources.ref_key(commit), packages=()
    )
    target = gobuilding.component_dir(cache, spec.name, spec.version)
    target.mkdir(parents=True)
    (target / gobuilding.STAMP).write_text(spec.version + "\n")


def test_built_is_the_builders_stamp_for_the_commit(tmp_path: Path, tree: Tree):
    cache = tmp_path / "cache"
    commit = tree.repo.commit("v1.2.0")
    assert not caching.is_built(commit, cache)
    (cache / "components" / f"argo-workflows-{commit[:12]}").mkdir(parents=True)
    assert not caching.is_built(commit, cache)  # an unfinished build is not built
    (cache / "components" / f"argo-workflows-{commit[:12]}" / ".complete").write_text(
        ""
    )
    assert caching.built(
        {"v1.2.0": commit, "v1.1.0": tree.repo.commit("v1.1.0")}, cache
    ) == {
        "v1.2.0": True,
        "v1.1.0": False,
    }


def test_the_plan_substitutes_from_the_cache_and_runs_each_tag_once(
    tmp_path: Path, tree: Tree
):
    cache = tmp_path / "cache"
    for tag in ("v1.0.0", "v1.2.0"):
        stamp(cache, tree.repo.commit(tag))
    loaded = history_of(
        fix(
            "one",
            commit=tree.fix_commit,
            before="v1.0.0",
            after="v1.1.0",
            backports=((tree.backport, "v1.0.0", "v1.0.1"),),
        ),
        fix("two", commit=tree.second_fix, before="v1.1.0", after="v1.2.0"),
    )
    plan = proving.make_plan(
        loaded,
        plans.select(loaded),
        source=str(tree.repo.path),
        layout="both",
        substitute_built=True,
        repo=tree.repo,
        is_built=lambda commit: caching.is_built(commit, cache),
    )
    # v1.0.0 lacks fix two but is older than its last tag with the bug: refused
    assert [(s.entry, s.side, s.needed, s.used) for s in plan.substitutions] == [
        ("one", plans.AFTER, "v1.1.0", "v1.2.0"),
    ]
    assert [(r.tag, r.entries, r.cached) for r in plan.runs] == [
        ("v1.0.0", ("one",), True),
        ("v1.2.0", ("one", "two"), True),
        ("v1.1.0", ("two",), False),
    ]
    unswapped = proving.make_plan(
        loaded,
        plans.select(loaded),
        source=str(tree.repo.path),
        layout="both",
        substitute_built=False,
        repo=tree.repo,
        is_built=lambda commit: caching.is_built(commit, cache),
    )
    assert [(r.tag, r.cached) for r in unswapped.runs] == [
        ("v1.0.0", True),
        ("v1.1.0", False),
        ("v1.2.0", True),
    ]
    assert unswapped.substitutions == ()


def test_built_asks_for_the_entry_the_builder_writes(tmp_path: Path, monkeypatch):
    commit = "ab" * 20
    cache = tmp_path / "cache"
    specs: list[gobuilding.GoBuild] = []
    monkeypatch.setattr(
        building.gobuilding, "build", lambda spec, **_: specs.append(spec) or tmp_path
    )
    source = sources.Source(
        tmp_path, sources.ref_key(commit), "v1.2.0", commit, dirty=False
    )
    building.build_source(source, cache)
    (spec,) = specs
    target = gobuilding.component_dir(cache, spec.name, spec.version)
    target.mkdir(parents=True)
    assert not caching.is_built(commit, cache)
    (target / gobuilding.STAMP).write_text(spec.version + "\n")
    assert caching.is_built(commit, cache)


def test_git_names_the_module_of_a_tag(tmp_path: Path):
    git = GitRepo(tmp_path / "argo", module="github.com/argoproj/argo-workflows/v3")
    git.commit("v3 module", tag="v4.0.1")
    git.set_module("github.com/argoproj/argo-workflows/v4")
    git.commit("v4 module", tag="v4.0.2")
    git.git("rm", "--quiet", "go.mod")
    git.commit("no module", tag="v9.0.0")
    repo = GitRepository(git.path)
    assert repo.module("v4.0.1") == "github.com/argoproj/argo-workflows/v3"
    assert repo.module("v4.0.2") == "github.com/argoproj/argo-workflows/v4"
    assert repo.module("v9.0.0") == ""
