"""We test these aspects of finding what a frozen program is made of:

imports are followed through the project (also those inside functions, and
`from pkg import module`), parent packages come along, stdlib and `__future__`
are ignored, third-party names are pinned to the installed distribution, and
the real executor needs nothing from PyPI.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from reference_impl.images import sources
from reference_impl.images.errors import SourceError
from reference_impl.images.freezing import REPO_ROOT


def tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_imports_are_followed_through_the_project(tmp_path):
    tree(
        tmp_path,
        {
            "proj/__init__.py": "",
            "proj/app/__init__.py": "",
            "proj/app/__main__.py": "from proj.app import cli\n",
            "proj/app/cli.py": "import json\ndef f():\n    from proj.lib import heavy\n",
            "proj/lib/__init__.py": "",
            "proj/lib/heavy.py": "import yaml\nfrom __future__ import annotations\n",
            "proj/unused.py": "import nothing_here\n",
        },
    )
    found = sources.closure(root=tmp_path, entry="proj.app.__main__")
    assert sorted(found.files) == [
        "proj/__init__.py",
        "proj/app/__init__.py",
        "proj/app/__main__.py",
        "proj/app/cli.py",
        "proj/lib/__init__.py",
        "proj/lib/heavy.py",
    ]
    assert found.third_party == {"yaml"}


def test_third_party_names_are_pinned_to_installed_versions():
    assert sources.requirements(frozenset({"yaml"})) == [
        f"PyYAML=={importlib.metadata.version('PyYAML')}"
    ]


def test_unknown_third_party_names_are_an_error():
    with pytest.raises(SourceError, match="no_such_dist_wpc"):
        sources.requirements(frozenset({"no_such_dist_wpc"}))


def test_the_executor_needs_nothing_from_pypi():
    found = sources.closure(root=REPO_ROOT, entry="reference_impl.executor.__main__")
    assert found.third_party == frozenset()
    assert "reference_impl/executor/api/kubeapi.py" in found.files
    assert not any(f.startswith("reference_impl/controller/") for f in found.files)
