"""We test the import cycle check of `make lint` (ci/import_cycles.py):

- a cycle closed by an import inside a function, one closed by a type-only
  import, one through a package's `__init__` and one through relative imports
  each fail the check, which names every edge with its file, line and statement;
- modules that import each other in one direction only pass;
- an allowance covers only type-only imports of the module it names by the
  package it names, and one that no edge uses any more fails the check;
- the project itself has no import cycle (what `make lint` runs), and
  `make lint` runs the check.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "ci" / "import_cycles.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


cycles = _load()


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _check(root: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *packages],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_cycle_closed_inside_a_function_fails_naming_each_edge(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": "from pkg import provider\n",
            "pkg/provider.py": """\
                def lookup():
                    from pkg import registry

                    return registry
            """,
        },
    )
    checked = _check(root, "pkg")
    assert checked.returncode == 1
    assert checked.stderr.splitlines() == [
        "import cycle among 2 modules: pkg.provider -> pkg.registry -> pkg.provider",
        "  pkg/provider.py:2  from pkg import registry (inside a function)",
        "  pkg/registry.py:1  from pkg import provider",
    ]


def test_a_type_only_cycle_fails(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": """\
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from pkg.a import Thing
                else:
                    Thing = object
            """,
        },
    )
    checked = _check(root, "pkg")
    assert checked.returncode == 1
    assert "  pkg/b.py:4  from pkg.a import Thing (type-only)" in checked.stderr


@pytest.mark.parametrize(
    "files",
    [
        # The package hands out a name of its module, which imports the package.
        {"pkg/__init__.py": "from pkg.a import A\n", "pkg/a.py": "from pkg import B\n"},
        # Relative imports, one of them two levels up.
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/a.py": "from .. import b\n",
            "pkg/b.py": "from .sub import a\n",
        },
        # Across two packages, with plain `import a.b`.
        {
            "one/__init__.py": "",
            "one/x.py": "import two.y\n",
            "two/__init__.py": "",
            "two/y.py": "import one.x as x\n",
        },
    ],
    ids=["through-init", "relative", "across-packages"],
)
def test_every_spelling_of_an_import_closes_a_cycle(tmp_path, files):
    root = _package(tmp_path, files)
    packages = sorted({name.split("/")[0] for name in files})
    checked = _check(root, *packages)
    assert checked.returncode == 1
    assert checked.stderr.startswith("import cycle among 2 modules: ")


def test_imports_in_one_direction_pass(tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import A\n",
            "pkg/a.py": "from pkg.b import B\nA = 1\n",
            "pkg/b.py": "import os\nfrom typing import TYPE_CHECKING\nB = 2\n",
        },
    )
    checked = _check(root, "pkg")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == "no import cycle among the 3 modules of pkg\n"


def _edge(importer: str, imported: str, *, type_only: bool):
    return cycles.Edge(
        importer=importer,
        imported=imported,
        path=Path(f"/r/{importer}.py"),
        line=1,
        statement="import x",
        local=False,
        type_only=type_only,
    )


def test_an_allowance_covers_only_the_type_only_imports_it_names():
    allowed = cycles.Allowed(package="p.t", imported="p.t.op", reason="why")
    assert allowed.covers(_edge("p.t.dags", "p.t.op", type_only=True))
    assert not allowed.covers(_edge("p.t.dags", "p.t.op", type_only=False))
    assert not allowed.covers(_edge("p.t.sub.dags", "p.t.op", type_only=True))
    assert not allowed.covers(_edge("p.t.dags", "p.t.other", type_only=True))


def test_an_allowance_no_edge_uses_fails_the_check():
    allowed = cycles.Allowed(package="p.t", imported="p.t.op", reason="why")
    graph = {"p.t": [], "p.t.op": [], "p.t.dags": []}
    _, stale = cycles.without_allowed(graph, [allowed])
    assert stale == [
        "allowed type-only imports of p.t.op by p.t.* are gone: remove the entry "
        "from ALLOWED in ci/import_cycles.py"
    ]
    # A package that is not checked is not judged.
    assert cycles.without_allowed({"q": []}, [allowed]) == ({"q": []}, [])


def test_the_project_has_no_import_cycle():
    # Failed before (on 4156e48): clusters.existing -> clusters.providers ->
    # clusters.existing, closed inside functions, with holding, kind and k3d.
    checked = _check(ROOT)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("no import cycle among the ")


def test_make_lint_runs_the_check():
    planned = subprocess.run(
        ["make", "-n", "-s", "-C", str(ROOT), "lint"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert "ci/import_cycles.py" in planned
