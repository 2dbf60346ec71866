"""We test where the `manifest` fixture reads a scenario's workflows (no cluster):

- a scenario of the bundled suite, in its area folder
  (`conformance/tests/status/test_hello_world.py`), reads the suite's one
  `conformance/tests/manifests/`, and every manifest a scenario loads is there:
  `<kebab-short-name>.yaml` for `manifest()`, the file it names otherwise;
- a test outside the bundled suite reads the `manifests/` beside it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance.harness.cluster import kube
from conformance.plugin.items import fixtures
from conformance.plugin.state import markers
from conformance.report.items import identity

SHARED = identity.SUITE_DIR / "manifests"


def _loaded(path: Path) -> set[str]:
    """The manifests a scenario file loads, by file name (literal names only)."""
    default = f"{kube.kebab(markers.short_name_for(path))}.yaml"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        name = called.attr if isinstance(called, ast.Attribute) else ""
        name = called.id if isinstance(called, ast.Name) else name
        if name != "manifest":
            continue
        if not node.args:
            names.add(default)
        elif isinstance(node.args[0], ast.Constant):
            names.add(str(node.args[0].value))
    return names


@pytest.mark.parametrize(
    "path", identity.suite_files(), ids=lambda p: p.relative_to(identity.SUITE_DIR)
)
def test_a_suite_scenario_reads_the_suites_manifests_wherever_it_sits(path):
    folder = fixtures.manifest_folder(path)
    assert folder == SHARED
    assert sorted(n for n in _loaded(path) if not (folder / n).is_file()) == []


def test_the_hello_world_scenario_in_its_area_folder_finds_its_manifest():
    hello = identity.SUITE_DIR / "status" / "test_hello_world.py"
    assert _loaded(hello) == {"hello-world.yaml"}
    assert (fixtures.manifest_folder(hello) / "hello-world.yaml").is_file()


def test_a_test_outside_the_suite_reads_the_manifests_beside_it(tmp_path):
    mine = tmp_path / "area" / "test_mine.py"
    assert fixtures.manifest_folder(mine) == tmp_path / "area" / "manifests"
