"""We test these aspects of the shipped scenarios' imports (no cluster):

- a scenario imports from the project only `conformance.harness` (and its
  modules) and `conformance.contract`: no plugin state, no plugin internals,
  no reports, no implementations;
- the harness's public surface is exactly its `__all__`.

conformance/tests is not a package, so import-linter cannot see it; this test
is its contract.
"""

from __future__ import annotations

import ast

import pytest

from conformance import harness
from conformance.report.items import identity

ALLOWED = ("conformance.harness", "conformance.contract")
PROJECT = ("conformance", "plumbing", "clusters", "chaos", "reference_impl")


def _imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "conformance":
                found += [f"conformance.{alias.name}" for alias in node.names]
            else:
                found.append(node.module)
    return found


@pytest.mark.parametrize(
    "path",
    identity.suite_files(),
    ids=lambda p: p.name,
)
def test_scenarios_import_only_the_harness_and_the_contract(path):
    project = [
        name for name in _imports(path.read_text()) if name.split(".")[0] in PROJECT
    ]
    foreign = [
        name
        for name in project
        if not any(name == a or name.startswith(a + ".") for a in ALLOWED)
    ]
    assert not foreign, f"{path.name} imports {foreign}"


def test_the_harness_exports_what_it_lists():
    assert [name for name in harness.__all__ if not hasattr(harness, name)] == []
