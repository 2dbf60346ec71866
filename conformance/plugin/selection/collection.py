"""Collection: validate markers, fan tests out over layouts, skip what is not claimed.

Every suite test becomes one item per layout its clauses apply to (parameter
`wpc_layout`). Items of layouts not selected with --layout are deselected;
items needing a feature the implementation does not claim are skipped with
exactly "implementation does not claim X", followed, for a layout the profile
claims but this run's build cannot run, by the build's reason in parentheses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance import contract
from conformance.errors import DataError
from conformance.plugin.state import keys
from conformance.plugin.state import markers
from conformance.plugin.state import runs
from conformance.report.items import identity
from conformance.report.items.records import scenario_of
from conformance.report.runs import words
from conformance.spec import Spec

SUITE_DIR = identity.SUITE_DIR
LAYOUT_PARAM = "wpc_layout"


def in_suite(path: Path) -> bool:
    """True for files of the bundled suite (conformance/tests)."""
    resolved = path.resolve()
    return resolved == SUITE_DIR or SUITE_DIR in resolved.parents


def declare(definition: Any, config: pytest.Config) -> markers.Declaration | None:
    """The validated declaration of a test function; CollectError when invalid."""
    mark = definition.get_closest_marker(markers.MARKER)
    path = Path(definition.path)
    if mark is None:
        if in_suite(path):
            raise pytest.Collector.CollectError(
                f"{definition.nodeid}: every test of the conformance suite declares "
                "@pytest.mark.conformance(short_name=..., clauses=[...], features=[...])"
            )
        return None
    try:
        return markers.declare(
            args=mark.args,
            kwargs=dict(mark.kwargs),
            path=path,
            spec=runs.of(config).spec,
        )
    except DataError as exc:
        raise pytest.Collector.CollectError(
            f"{definition.nodeid}: invalid @pytest.mark.conformance: {exc}"
        ) from exc


def generate(metafunc: pytest.Metafunc) -> None:
    """Parametrize a suite test over the layouts its clauses apply to."""
    decl = declare(metafunc.definition, metafunc.config)
    if decl is not None:
        metafunc.parametrize(
            LAYOUT_PARAM, decl.layouts, ids=decl.layouts, indirect=True
        )


def support_of(decl: markers.Declaration, spec: Spec) -> str:
    """Extended if any non-layout feature of the test is Extended, else Core."""
    supports = {
        f.name: str(getattr(f.support, "value", f.support)) for f in spec.features
    }
    layout_features = set(contract.LAYOUT_FEATURES.values())
    extended = any(
        supports.get(f) == "Extended" for f in decl.features if f not in layout_features
    )
    return "Extended" if extended else "Core"


def missing_features(
    decl: markers.Declaration, layout: str, claimed: frozenset[str]
) -> list[str]:
    """Features the item needs that the implementation does not claim, sorted."""
    needed = set(decl.features) | {contract.LAYOUT_FEATURES[layout]}
    return sorted(needed - claimed)


def skip_reason(missing: list[str], unsupported: dict[str, str]) -> str:
    """Why an item is skipped: the features not claimed, and why the build lacks a layout."""
    why = [
        f"{contract.LAYOUT_FEATURES[layout]}: {reason}"
        for layout, reason in unsupported.items()
        if contract.LAYOUT_FEATURES[layout] in missing
    ]
    because = f" ({'; '.join(why)})" if why else ""
    return f"{words.UNCLAIMED} {', '.join(missing)}{because}"


def modify_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Stash declarations, deselect unselected layouts, skip unclaimed features."""
    settings = runs.of(config).settings
    claimed = runs.of(config).claimed
    unsupported = dict(runs.of(config).profile.unsupported_layouts)
    spec = runs.of(config).spec
    declarations = runs.of(config).declarations
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        if not isinstance(item, pytest.Function) or not hasattr(item, "callspec"):
            kept.append(item)
            continue
        param = item.callspec.params.get(LAYOUT_PARAM)
        if param is None:
            kept.append(item)
            continue
        layout = str(param)
        decl = declare(item, config)
        assert decl is not None  # the item was parametrized from its declaration
        item.stash[keys.DECLARATION] = decl
        item.stash[keys.LAYOUT] = layout
        item.stash[keys.TEST_ID] = identity.of_nodeid(
            item.nodeid, decl.short_name, path=Path(item.path)
        )
        item.stash[keys.SUPPORT] = support_of(decl, spec)
        declarations[scenario_of(item.nodeid, layout)] = decl
        if layout not in settings.layouts:
            deselected.append(item)
            continue
        missing = missing_features(decl, layout, claimed)
        if missing:
            item.add_marker(pytest.mark.skip(reason=skip_reason(missing, unsupported)))
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
