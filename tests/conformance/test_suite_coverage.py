"""We test these aspects of the shipped suite's coverage (no cluster):

- every MUST clause of `conformance/spec/requirements.yaml` is named by a
  scenario in `conformance/tests/`, in every layout the clause applies to;
- every scenario's marker is valid against the spec (known clause IDs, a
  ShortName that matches the file, clauses that share a layout);
- every scenario file sits in the folder of one of the clause areas it cites
  (`conformance/tests/status/test_hello_world.py`), none at the top, no two
  with the same name (pytest imports each by its name, and an old report's
  node ID finds its file by it), and no folder holds more than 15 of them.

The markers are read from the source with `ast`, so the check needs neither a
cluster nor an implementation profile.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

from conformance import spec
from conformance.plugin.state import markers
from conformance.report.items import identity
from conformance.report.runs import ledger

SUITE = identity.SUITE_DIR
MOST_MODULES_PER_FOLDER = 15
"""Issue 25: folders of at most 15 modules."""


def _marker_kwargs(node: ast.expr) -> dict[str, Any] | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr != "conformance":
        return None
    return {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}


def _declared() -> list[tuple[Path, markers.Declaration]]:
    """Every marker of the suite with the file it is in."""
    shipped = spec.load()
    found = []
    for path in identity.suite_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    kwargs = _marker_kwargs(decorator)
                    if kwargs is not None:
                        found.append(
                            (
                                path,
                                markers.declare(
                                    args=(), kwargs=kwargs, path=path, spec=shipped
                                ),
                            )
                        )
    return found


def _declarations() -> list[markers.Declaration]:
    return [declaration for _path, declaration in _declared()]


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


def test_every_scenario_sits_in_the_folder_of_a_clause_area_it_cites():
    area_of = {r.id: r.area.lower() for r in spec.load().requirements}
    cited: dict[Path, set[str]] = {}
    for path, declaration in _declared():
        cited.setdefault(path, set()).update(area_of[c] for c in declaration.clauses)
    assert len(cited) == len(identity.suite_files())
    misplaced = [
        f"{path.relative_to(SUITE)} (areas cited: {', '.join(sorted(areas))})"
        for path, areas in sorted(cited.items())
        if path.parent.parent != SUITE or path.parent.name not in areas
    ]
    assert not misplaced, "scenarios outside their areas' folders:\n" + "\n".join(
        misplaced
    )


def test_scenario_names_are_unique_and_no_folder_holds_more_than_fifteen():
    files = identity.suite_files()
    same_name = [n for n, k in Counter(p.name for p in files).items() if k > 1]
    assert not same_name
    crowded = {
        folder.name: count
        for folder, count in Counter(p.parent for p in files).items()
        if count > MOST_MODULES_PER_FOLDER
    }
    assert not crowded
