"""`--wpc-select` (`wpc run --select`): choose tests by the names the reports show.

pytest's `-k` matches function and file names (`hello_world`), which no report,
listing or spec shows; a user reading `HelloWorld` or `WPC-KILL-003` there
could not select it. A selector here is matched, as a case-sensitive glob
(`fnmatch`), against each item's names:

- its ShortName (`HelloWorld`),
- its identity (`HelloWorld[legacy]`, `StatusDeadlines::test_x[initless]`) and
  that identity without the layout (`StatusDeadlines::test_x`),
- the clause IDs it checks (`WPC-KILL-003`) and their areas (`KILL`, the
  `<AREA>` of `WPC-<AREA>-<NNN>`, which is also the SPEC.md section).

Selectors add up (an item runs when any one matches); the rest are deselected
like `-k` deselects, after the layout selection, so `--list` shows exactly what
a run would run. A selector that matches no item of the selected layouts is a
mistake, never an empty run: the run stops with INVALID_INPUT naming it.
`wpc run` checks this by collecting before it touches a cluster; plain pytest
stops at collection.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

import pytest

from conformance.exitcodes import ExitCode
from conformance.plugin.selection import options
from conformance.plugin.state import keys
from conformance.plugin.state import runs
from conformance.plugin.state.markers import Declaration
from conformance.report.items.records import scenario_of
from conformance.spec import Spec

DEST = "wpc_select"


def names(decl: Declaration, test_id: str, layout: str, spec: Spec) -> tuple[str, ...]:
    """Every name a selector may match for one item (see the module docstring)."""
    requirements = spec.by_id()
    areas = sorted({requirements[c].area for c in decl.clauses if c in requirements})
    return (
        decl.short_name,
        test_id,
        scenario_of(test_id, layout),
        *decl.clauses,
        *areas,
    )


def matching(patterns: Sequence[str], found: Sequence[str]) -> list[str]:
    """The patterns that match at least one of `found`."""
    return [p for p in patterns if any(fnmatchcase(name, p) for name in found)]


def unmatched_message(patterns: Sequence[str]) -> str:
    """The error for selectors that selected nothing, naming each."""
    return (
        f"--select {', '.join(repr(p) for p in patterns)}: matches no test in the "
        "selected layouts (a selector is a ShortName, a test's identity, a clause ID "
        "or an area, or a glob over those; `wpc run --list` shows them)"
    )


def _patterns(config: pytest.Config) -> list[str]:
    return [str(p) for p in options.value(config, DEST) or []]


def _matching(config: pytest.Config, item: pytest.Item) -> list[str] | None:
    """The selectors matching a suite item; None for an item that is not one."""
    decl = item.stash.get(keys.DECLARATION, None)
    if decl is None:
        return None
    found = names(
        decl, item.stash[keys.TEST_ID], item.stash[keys.LAYOUT], runs.of(config).spec
    )
    return matching(_patterns(config), found)


def leaves_out(config: pytest.Config, item: pytest.Item) -> bool:
    """Whether a `--wpc-select` leaves this suite item out (also one of a layout not run)."""
    return bool(_patterns(config)) and _matching(config, item) == []


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the suite items no `--wpc-select` matches; exit 10 for a dud selector."""
    patterns = _patterns(config)
    if not patterns:
        return
    used: set[str] = set()
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        found = _matching(config, item)
        if found is None:
            kept.append(item)
            continue
        used.update(found)
        if found:
            kept.append(item)
        else:
            left_out.append(item)
    unused = [p for p in patterns if p not in used]
    if unused:
        pytest.exit(unmatched_message(unused), returncode=ExitCode.INVALID_INPUT)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
