"""We test how a qualification names its two builds and selects reruns (pure):

- a tag keeps its name as the image tag and cache directory; any ref gets a
  DNS-label slug for its instance IDs (`wpc-q-<slug>`), which stays valid for
  the upstream profile in both layouts, and distinct from a plain run's;
- two refs that would share a name, an empty ref, or a ref with no letters or
  digits are refused naming the problem;
- the profile must declare the variables a build sets;
- reruns select, per layout, the differing items' test functions with `-k`;
- two refs run side by side only when their CRDs are the same in the source
  repository (a real git repository here); different CRDs, a ref git does not
  know or no source say why not.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conformance.errors import DataError
from wpc.qualify import builds

MIRROR = "/work/.mirror/argoproj+argo-workflows/repo"


def test_a_tag_names_its_build_and_gets_its_own_instances():
    old, new = builds.plan("v4.1.0", "v4.1.2", MIRROR)
    assert old.variables() == {
        "source": MIRROR,
        "ref": "v4.1.0",
        "build": "v4.1.0",
        "instance_prefix": "wpc-q-v4-1-0",
    }
    assert (new.side, new.build, new.instance_prefix) == (
        "new",
        "v4.1.2",
        "wpc-q-v4-1-2",
    )


def test_a_branch_is_named_by_its_slug():
    build = builds.Build("new", "origin/Release-4.1", "")
    assert build.build == "origin-release-4-1"
    assert "source" not in build.variables()


@pytest.mark.parametrize("ref", ["v4.1.0", "release/4.1", "a" * 40])
def test_the_upstream_profile_takes_each_builds_variables(ref):
    build = builds.Build("old", ref, MIRROR)
    profile = builds.check_profile("argo-workflows", build)
    assert profile.images["executor"].endswith(f":{build.build}")
    legacy = profile.instance("legacy").instance_id
    initless = profile.instance("initless").instance_id
    assert legacy.startswith("wpc-q-")
    assert initless.endswith("-initless")
    assert not {legacy, initless} & {"wpc-legacy", "wpc-initless"}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("v4.1.0", "v4.1.0", r"would share the build name 'v4-1-0'"),
        ("v4.1.0", "v4-1-0", r"would share the build name"),
        ("", "v4.1.2", r"OLD: give a git ref"),
        ("v4.1.0", " ", r"NEW: give a git ref"),
        ("...", "v4.1.2", r"ref '\.\.\.': no letters or digits"),
    ],
)
def test_bad_pairs_of_refs_are_refused(old, new, message):
    with pytest.raises(DataError, match=message):
        builds.plan(old, new, MIRROR)


def test_a_profile_without_the_variables_cannot_be_qualified():
    build = builds.Build("old", "v1", "")
    with pytest.raises(
        DataError,
        match=r"'reference': qualify needs the profile variables source, ref, build, "
        r"instance_prefix; it does not declare source, ref, build, instance_prefix",
    ):
        builds.check_profile("reference", build)


def test_reruns_of_both_layouts_are_one_run_selecting_each_layouts_items():
    """One rerun per side and round, not one per layout (failed before: two runs)."""
    keys = [
        ("conformance/tests/test_a.py::test_alpha[legacy]", "legacy"),
        ("conformance/tests/test_b.py::test_beta[initless]", "initless"),
        ("conformance/tests/test_a.py::test_alpha[initless]", "initless"),
    ]
    assert builds.selections(keys) == {
        "both": "(test_alpha and [initless]) or (test_beta and [initless])"
        " or (test_alpha and [legacy])",
    }


def test_reruns_of_one_layout_run_only_that_layout():
    keys = [
        ("conformance/tests/test_a.py::test_alpha[legacy]", "legacy"),
        ("conformance/tests/test_b.py::test_beta[legacy]", "legacy"),
    ]
    assert builds.selections(keys) == {"legacy": "test_alpha or test_beta"}
    assert builds.profile_var_args({"ref": "v1", "build": "b"}) == [
        "--profile-var",
        "build=b",
        "--profile-var",
        "ref=v1",
    ]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def _tagged(repo: Path, tag: str, crd: str, other: str) -> None:
    crds = repo / "manifests" / "base" / "crds" / "full"
    crds.mkdir(parents=True, exist_ok=True)
    (crds / "workflow.yaml").write_text(crd)
    (repo / "README.md").write_text(other)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", tag)
    _git(repo, "tag", tag)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    _tagged(tmp_path, "v1.0.0", "kind: CustomResourceDefinition\n", "one")
    _tagged(tmp_path, "v1.0.1", "kind: CustomResourceDefinition\n", "two")
    _tagged(tmp_path, "v1.1.0", "kind: CustomResourceDefinition\nnew: field\n", "3")
    return tmp_path


def test_refs_with_the_same_crds_can_share_the_cluster(repo):
    assert (
        builds.shared_cluster_conflict(*builds.plan("v1.0.0", "v1.0.1", str(repo)))
        == ""
    )


def test_refs_whose_crds_differ_run_one_at_a_time(repo):
    why = builds.shared_cluster_conflict(*builds.plan("v1.0.1", "v1.1.0", str(repo)))
    assert why == "their CRDs differ (manifests/base/crds of v1.0.1 and v1.1.0)"


def test_a_ref_git_does_not_know_or_no_source_is_no_side_by_side(repo):
    why = builds.shared_cluster_conflict(*builds.plan("v1.0.0", "v9.9.9", str(repo)))
    assert why.startswith("git could not compare their CRDs (exit 128: ")
    assert "v9.9.9" in why
    assert builds.shared_cluster_conflict(*builds.plan("v1.0.0", "v1.0.1", "")) == (
        "no source repository to compare their CRDs in"
    )
