"""We test how one profile builds several upstream versions side by side:

- a variable's default may name `{version}`, `{name}` and other variables in any
  order, and `{a|b}` takes `b` when `a` is empty; an unknown name, a format spec
  and defaults naming each other are errors naming the variable;
- image references are filled with the variables, and a filled tag that is no
  image tag is an error naming the image and the value;
- the argo-workflows profile: with no ref, or ref v4.1.2, every image tag, cache
  path and instance ID is exactly what it was before builds had names (docs and
  CI rely on them); ref v4.1.0 gets its own tag and cache paths, and
  instance_prefix its own instance IDs;
- the upstream builder refuses --ref without a source (the ref would be ignored);
  its `contexts` verb tags the images it prepares after the ref built (else the
  version) unless --tag names one, so a ref built by hand never lands in the
  pinned release's image contexts, and a ref that is no image tag is refused
  before anything is built.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.errors import DataError
from conformance.implementations import profiles
from conformance.implementations.upstream import __main__ as upstream_cli
from conformance.implementations.upstream import building
from tests.conformance.test_implementations import KNOWN
from tests.conformance.test_implementations import write_profile

VALUES = {
    "repo": "/repo",
    "python": "python3",
    "kubeconfig": "/kc",
    "kubectl": "kubectl",
    "provider": "local",
    "cluster": "wpc",
    "cache_dir": "/cache",
}
MIRROR = "/work/.mirror/argoproj+argo-workflows/repo"


def _prepare_and_install(profile: profiles.Profile) -> list[list[str]]:
    values = profiles.placeholder_values(
        profile,
        {
            **VALUES,
            "layouts": "legacy,initless",
            "instance_id": profile.instance("legacy").instance_id,
            "layout": "legacy",
            "namespace": profile.instance("legacy").namespace,
            "initless": "false",
        },
    )
    commands = [*profile.commands["prepare"], *profile.commands["install"]]
    return [profiles.render(command, values) for command in commands]


def test_fill_template_takes_the_first_non_empty_choice():
    values = {"ref": "", "version": "v4.1.2"}
    assert profiles.fill_template("x:{ref|version}", values, "w") == "x:v4.1.2"
    values["ref"] = "v4.1.0"
    assert profiles.fill_template("x:{ref|version}", values, "w") == "x:v4.1.0"
    assert (
        profiles.fill_template("{ref|version}", {"ref": "", "version": ""}, "w") == ""
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "{nope|version}",
            r"where: unknown placeholder \{nope\} in '\{nope\|version\}'",
        ),
        ("{version:>9}", r"where: \{version\} in .*: no format spec or conversion"),
        ("{version!r}", r"no format spec or conversion"),
        ("{version", r"where: .*'\{version'"),
    ],
)
def test_fill_template_refuses_what_it_cannot_fill(template, message):
    with pytest.raises(DataError, match=message):
        profiles.fill_template(template, {"version": "1"}, "where")


def test_defaults_may_name_other_variables_in_any_order(tmp_path):
    path = write_profile(
        tmp_path,
        variables={"tag": "{ref|version}-{flavour}", "ref": "", "flavour": "plain"},
    )
    profile = profiles.load(str(path), known_features=KNOWN)
    version = profile.version
    assert profile.variables["tag"] == f"{version}-plain"
    given = profiles.load(
        str(path), known_features=KNOWN, variables={"ref": "v9", "flavour": "x"}
    )
    assert given.variables["tag"] == "v9-x"


def test_a_given_value_is_taken_as_it_is(tmp_path):
    path = write_profile(tmp_path, variables={"ref": "", "note": "{ref}"})
    profile = profiles.load(
        str(path), known_features=KNOWN, variables={"note": "{literally}"}
    )
    assert profile.variables["note"] == "{literally}"


def test_defaults_naming_each_other_are_an_error(tmp_path):
    path = write_profile(tmp_path, variables={"a": "{b}", "b": "x{a}"})
    with pytest.raises(DataError, match=r"defaults name each other: a -> b -> a"):
        profiles.load(str(path), known_features=KNOWN)


def test_a_default_naming_an_unknown_placeholder_names_the_variable(tmp_path):
    path = write_profile(tmp_path, variables={"a": "{instance_id}"})
    with pytest.raises(
        DataError, match=r"variables.a: unknown placeholder \{instance_id\}"
    ):
        profiles.load(str(path), known_features=KNOWN)


def test_images_are_filled_with_the_variables(tmp_path):
    path = write_profile(
        tmp_path,
        variables={"tag": "v1"},
        images={"executor": "reg/exec:{tag}", "controller": "reg/ctl:{tag}-{name}"},
    )
    profile = profiles.load(str(path), known_features=KNOWN, variables={"tag": "v2"})
    assert profile.images["executor"] == "reg/exec:v2"
    assert profile.images["controller"] == f"reg/ctl:v2-{profile.name}"


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        (
            "origin/main",
            r"images.executor: 'reg/exec:origin/main' .*'origin/main' is not a valid image tag",
        ),
        ("", r"images.executor: .*'' is not a valid image tag"),
        ("latest", r"images.executor: 'reg/exec:latest' needs a pinned tag"),
    ],
)
def test_a_filled_image_tag_must_be_a_pinned_tag(tmp_path, tag, message):
    path = write_profile(
        tmp_path, variables={"tag": "v1"}, images={"executor": "reg/exec:{tag}"}
    )
    with pytest.raises(DataError, match=message):
        profiles.load(str(path), known_features=KNOWN, variables={"tag": tag})


@pytest.mark.parametrize("variables", [{}, {"source": MIRROR, "ref": "v4.1.2"}])
def test_the_upstream_profile_without_a_ref_or_at_v4_1_2_is_unchanged(variables):
    profile = profiles.load("argo-workflows", variables=variables)
    assert profile.images["executor"] == "wpc.local/argoproj/argoexec:v4.1.2"
    assert (
        profile.images["controller"] == "wpc.local/argoproj/workflow-controller:v4.1.2"
    )
    assert dict(profile.instance_ids) == {
        "legacy": "wpc-legacy",
        "initless": "wpc-initless",
    }
    rendered = _prepare_and_install(profile)
    contexts = rendered[0]
    assert contexts[contexts.index("--workdir") + 1] == "/cache/images/argo-v4.1.2"
    assert contexts[contexts.index("--tag") + 1] == "v4.1.2"
    assert contexts[contexts.index("--ref") + 1] == variables.get("ref", "")
    flat = [arg for command in rendered for arg in command]
    assert "/cache/argo/v4.1.2/crds.yaml" in flat
    assert "/cache/argo/v4.1.2/wpc-legacy.yaml" in flat


def test_each_ref_gets_its_own_tag_and_cache_paths():
    old = profiles.load("argo-workflows", variables={"source": MIRROR, "ref": "v4.1.0"})
    assert old.images["executor"] == "wpc.local/argoproj/argoexec:v4.1.0"
    assert old.images["controller"] == "wpc.local/argoproj/workflow-controller:v4.1.0"
    flat = [arg for command in _prepare_and_install(old) for arg in command]
    assert "/cache/images/argo-v4.1.0" in flat
    assert "/cache/argo/v4.1.0/crds.yaml" in flat
    assert not [arg for arg in flat if "v4.1.2" in arg and arg != "v4.1.2"]
    # `--version` stays the module proxy's version, used only without a source.
    assert flat[flat.index("--version") + 1] == "v4.1.2"


def test_instance_prefix_gives_a_build_its_own_instances():
    old = profiles.load(
        "argo-workflows", variables={"ref": "v4.1.0", "instance_prefix": "wpc-v4-1-0"}
    )
    new = profiles.load("argo-workflows", variables={"ref": "v4.1.2"})
    assert old.instance("initless").instance_id == "wpc-v4-1-0-initless"
    assert old.instance("initless").namespace == "argo-wpc-v4-1-0-initless"
    assert set(old.instance_ids.values()).isdisjoint(new.instance_ids.values())


def test_a_branch_name_needs_a_build_name():
    with pytest.raises(DataError, match=r"'release/4.1' is not a valid image tag"):
        profiles.load("argo-workflows", variables={"ref": "release/4.1"})
    named = profiles.load(
        "argo-workflows", variables={"ref": "release/4.1", "build": "release-4.1"}
    )
    assert named.images["executor"].endswith(":release-4.1")


def test_the_builder_refuses_a_ref_without_a_source(
    monkeypatch, capsys, tmp_path: Path
):
    monkeypatch.delenv("WPC_ARGO_SOURCE", raising=False)
    code = upstream_cli.main(
        ["describe", "--ref", "v4.1.0", "--cache-dir", str(tmp_path)]
    )
    assert code == 1
    assert "--ref v4.1.0 needs a git repository" in capsys.readouterr().err


def _fake_build(monkeypatch, tmp_path: Path) -> list[str]:
    """Stand the source and the build in: no git, no go; returns the calls made."""
    built: list[str] = []
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for program in building.PROGRAMS:
        (bindir / program).write_bytes(b"binary")
    monkeypatch.setattr(upstream_cli, "_source", lambda args: args.ref or "tree")

    def build_source(source: str, cache_dir: Path) -> Path:
        built.append(source)
        return bindir

    monkeypatch.setattr(building, "build_source", build_source)
    return built


@pytest.mark.parametrize(
    ("flags", "tag"),
    [
        (["--ref", "v3.7.0-rc3"], "v3.7.0-rc3"),
        (["--ref", "v3.7.0-rc3", "--tag", "mine"], "mine"),
        ([], "v4.1.2"),
    ],
)
def test_contexts_are_tagged_after_the_ref_built(
    monkeypatch, capsys, tmp_path: Path, flags: list[str], tag: str
):
    _fake_build(monkeypatch, tmp_path)
    cache = tmp_path / "cache"
    code = upstream_cli.main(["contexts", *flags, "--cache-dir", str(cache)])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"wpc.local/argoproj/{program}:{tag} {cache}/images/argo-{program}-{tag}"
        for program in building.PROGRAMS
    ]
    assert sorted(p.name for p in (cache / "images").iterdir()) == sorted(
        f"argo-{program}-{tag}" for program in building.PROGRAMS
    )


def test_contexts_refuse_a_ref_that_is_no_image_tag_before_building(
    monkeypatch, capsys, tmp_path: Path
):
    built = _fake_build(monkeypatch, tmp_path)
    code = upstream_cli.main(
        ["contexts", "--ref", "release/3.7", "--cache-dir", str(tmp_path / "cache")]
    )
    assert code == 1
    assert "'release/3.7' is not a valid image tag; give --tag NAME" in (
        capsys.readouterr().err
    )
    assert built == []
