"""We test how a qualification names its two builds and selects reruns (pure):

- a tag keeps its name as the image tag and cache directory; any ref gets a
  DNS-label slug for its instance IDs (`wpc-q-<slug>`), which stays valid for
  the upstream profile in both layouts, and distinct from a plain run's;
- two refs that would share a name, an empty ref, or a ref with no letters or
  digits are refused naming the problem;
- the profile must declare the variables a build sets;
- reruns select, per layout, the differing items' test functions with `-k`.
"""

from __future__ import annotations

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
