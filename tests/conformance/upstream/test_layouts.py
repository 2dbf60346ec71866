"""We test how a v4.0.x tree (no init-less layout, `/v3` module) is built and installed:

- the init-less layout is detected from the source (the `initlessPod` field in
  `config/`), not from a tag: a test file naming it does not count;
- `layouts` prints, as one JSON line, null for each layout the tree has and the
  reason for the one it lacks;
- `manifests` with the source leaves `initlessPod` out of the ConfigMap of a
  tree without it (Argo parses its ConfigMap strictly), refuses `--layout
  initless` there with the reason, and keeps the key for a tree with it or, as
  the published-images profile runs it, without a source; a source without
  `--cache-dir` is refused rather than ignored;
- the binaries of a `/v3` tree are stamped with `/v3` version ldflags, from
  `./cmd/workflow-controller` and `./cmd/argoexec`, with the pinned build tag.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from conformance.implementations.upstream import __main__ as upstream_cli
from conformance.implementations.upstream import building
from conformance.implementations.upstream import layouts
from conformance.implementations.upstream import pins
from conformance.implementations.upstream import sources

V3 = "github.com/argoproj/argo-workflows/v3"
CONFIG_V41 = (
    "package config\n\ntype Config struct {\n"
    '\tInitlessPod *InitlessPodConfig `json:"initlessPod,omitempty"`\n}\n'
)
CONFIG_V40 = 'package config\n\ntype Config struct {\n\tInstanceID string `json:"instanceID,omitempty"`\n}\n'


def _tree(root: Path, *, module: str, config: str) -> Path:
    (root / "config").mkdir(parents=True)
    (root / "go.mod").write_text(f"module {module}\n\ngo 1.24.10\n")
    (root / "config" / "config.go").write_text(config)
    return root


def _repo(root: Path, *, module: str, config: str, tag: str) -> Path:
    _tree(root, module=module, config=config)
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (
        ["init", "-q"],
        [*ident, "add", "."],
        [*ident, "commit", "-qm", "one"],
        ["tag", tag],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return root


def test_a_tree_without_the_initless_field_lacks_the_initless_layout(tmp_path):
    old = _tree(tmp_path / "old", module=V3, config=CONFIG_V40)
    new = _tree(tmp_path / "new", module=pins.MODULE, config=CONFIG_V41)
    assert layouts.unsupported(new) == {}
    missing = layouts.unsupported(old)
    assert list(missing) == ["initless"]
    assert "initlessPod" in missing["initless"]
    # A test file naming the field is no controller that has it.
    (old / "config" / "config_test.go").write_text(CONFIG_V41)
    assert list(layouts.unsupported(old)) == ["initless"]
    # A tree without config/ has no field either.
    assert list(layouts.unsupported(tmp_path)) == ["initless"]


def test_the_layouts_verb_prints_each_layout_null_or_why_not(tmp_path, capsys):
    repo = _repo(tmp_path / "argo", module=V3, config=CONFIG_V40, tag="v4.0.0")
    args = ["--source", str(repo), "--ref", "v4.0.0", "--cache-dir", str(tmp_path)]
    assert upstream_cli.main(["layouts", *args]) == 0
    answer = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert answer["legacy"] is None
    assert "initlessPod" in answer["initless"]
    new = _tree(tmp_path / "new", module=pins.MODULE, config=CONFIG_V41)
    assert (
        upstream_cli.main(
            ["layouts", "--source", str(new), "--cache-dir", str(tmp_path)]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == {"legacy": None, "initless": None}


def _manifests(tmp_path: Path, layout: str, *source: str) -> tuple[int, Path]:
    out = tmp_path / f"{layout}.yaml"
    code = upstream_cli.main(
        [
            "manifests",
            "--instance-id",
            f"wpc-{layout}",
            "--layout",
            layout,
            "--namespace",
            f"argo-wpc-{layout}",
            "--controller-image",
            "c:1",
            "--executor-image",
            "e:1",
            "--output",
            str(out),
            *source,
        ]
    )
    return code, out


def _configmap(path: Path) -> dict[str, str]:
    docs = list(yaml.safe_load_all(path.read_text()))
    found: dict[str, str] = next(d for d in docs if d["kind"] == "ConfigMap")["data"]
    return found


def test_manifests_of_a_tree_without_the_initless_layout_leave_its_key_out(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv(sources.SOURCE_ENV, raising=False)
    repo = _repo(tmp_path / "argo", module=V3, config=CONFIG_V40, tag="v4.0.0")
    source = ["--source", str(repo), "--ref", "v4.0.0", "--cache-dir", str(tmp_path)]
    code, out = _manifests(tmp_path, "legacy", *source)
    assert code == 0
    data = _configmap(out)
    assert "initlessPod" not in data
    assert data["instanceID"] == "wpc-legacy"
    code, out = _manifests(tmp_path / "no-cache", "legacy", *source[:4])
    assert code == 1
    assert "--source and --ref need --cache-dir" in capsys.readouterr().err
    code, out = _manifests(tmp_path, "initless", *source)
    assert code == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert "--layout initless: this build cannot run it" in err
    assert "initlessPod" in err


def test_manifests_keep_the_initless_key_with_the_layout_or_without_a_source(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(sources.SOURCE_ENV, raising=False)
    new = _tree(tmp_path / "new", module=pins.MODULE, config=CONFIG_V41)
    source = ["--source", str(new), "--cache-dir", str(tmp_path)]
    for layout, enabled in (("legacy", "false"), ("initless", "true")):
        code, out = _manifests(tmp_path, layout, *source)
        assert code == 0
        assert _configmap(out)["initlessPod"] == f"enabled: {enabled}\n"
        code, out = _manifests(tmp_path / "no-source", layout)
        assert code == 0
        assert _configmap(out)["initlessPod"] == f"enabled: {enabled}\n"


def test_a_v3_tree_is_built_with_v3_ldflags(tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(
        building.gobuilding,
        "build",
        lambda spec, **kwargs: built.append(spec) or tmp_path,
    )
    source = sources.Source(
        tmp_path, "a8bff4a72130", "v4.0.0", "a8bff4a72130" + "0" * 28, False, V3
    )
    assert building.build_source(source, tmp_path) == tmp_path
    (spec,) = built
    assert spec.ldflags == (
        f"-X {V3}.version=v4.0.0",
        f"-X {V3}.gitCommit={source.commit}",
        f"-X {V3}.gitTreeState=clean",
    )
    assert spec.packages == ("./cmd/workflow-controller", "./cmd/argoexec")
    assert spec.tags == pins.BUILD_TAGS
    assert spec.module_dir == tmp_path
    assert spec.static
