"""We test these aspects of the shipped suite's coverage (no cluster):

- every MUST clause of `conformance/spec/requirements.yaml` is named by a
  scenario in `conformance/tests/`, in every layout the clause applies to;
- every scenario's marker is valid against the spec (known clause IDs, a
  ShortName that matches the file, clauses that share a layout).

The markers are read from the source with `ast`, so the check needs neither a
cluster nor an implementation profile.
"""

from __future__ import annotations

import ast
from typing import Any

from conformance import spec
from conformance.plugin.selection import collection
from conformance.plugin.state import markers
from conformance.report.runs import ledger

SUITE = collection.SUITE_DIR


def _marker_kwargs(node: ast.expr) -> dict[str, Any] | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr != "conformance":
        return None
    return {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}


def _declarations() -> list[markers.Declaration]:
    shipped = spec.load()
    found = []
    for path in sorted(SUITE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    kwargs = _marker_kwargs(decorator)
                    if kwargs is not None:
                        found.append(
                            markers.declare(
                                args=(), kwargs=kwargs, path=path, spec=shipped
                            )
                        )
    return found


def test_the_suite_has_scenarios_to_read():
    assert len(_declarations()) >= 50


def test_every_must_clause_has_a_test_in_every_layout_it_applies_to():
    result = ledger.build(spec.load(), _declarations())
    gaps = [
        f"{g.clause} (missing layouts: {', '.join(g.missing_layouts)})"
        for g in (*result.uncovered_must, *result.partial)
        if g.level == "MUST"
    ]
    assert not gaps, "MUST clauses without a test:\n" + "\n".join(gaps)
