"""Explained differences as data: a file of reasons, matched against a `ReportDiff`.

A confirmed regression can still be expected: v4.1.0 passed WPC-FINALIZER-009
only because of a SIGTERM bug that v4.1.2 fixed (issue 17), so the spec's own
expectation (OQ-2: Argo v4.1.x fails it) shows up as a regression. Rather than
rerunning or editing the verdict, a person records why, with evidence, in an
explanations file (`wpc/qualify/explained.yaml`, schema beside it).
`load` reads and checks such a file (every error names the file and the key);
`apply` (pure) gives each item and clause change the first entry that matches
it, so an explained regression stays listed with its reason but no longer
makes the diff a regression, and it records which entries explained nothing
(stale entries stay visible) and which are for other versions.

An entry matches a change when its kind is the change's, its `old` and `new`
globs match one of the names of each side's version (the recorded version, its
first word, which for a tag is the tag, and any ref the caller knows, such as a
qualification's git ref), its layouts (if given) hold the change's layout, its
`clause` glob matches a clause the item cites (or the changed clause), and its
`test` glob matches the item's short name, identity or node id (for a clause change: one
of the tests citing the clause in that layout). An entry naming an `experiment` instead
explains only chaos case changes (`chaoscases`): its glob matches the experiment's name.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance.errors import DataError
from wpc.diff.comparing import ClauseChange
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import Explanations
from wpc.diff.comparing import ItemChange
from wpc.diff.comparing import ReportDiff
from wpc.diff.comparing import Side

SCHEMA_PATH = Path(__file__).parent.parent / "qualify" / "explained.schema.json"
"""The file format is the qualification's (its default file sits beside the schema);
`diff --explained` reads the same format."""
API_VERSION = "wpc.dev/v1alpha1"
KIND = "ExplainedDifferences"


def _where(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "<top level>"


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "anyOf" and _where(error).startswith("explanations."):
        return (
            "give clause, test or both, or experiment (an entry must select something)"
        )
    if error.validator == "not" and _where(error).startswith("explanations."):
        return "an experiment entry explains chaos cases only: drop clause and test"
    return error.message


def load(path: Path) -> tuple[Explanation, ...]:
    """The entries of the explanations file at `path`; DataError naming file and key."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"{path}: cannot read the explanations: {exc}") from exc
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: explanations are not valid YAML: {exc}") from exc
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(data),
        key=lambda e: [str(p) for p in e.absolute_path],
    )
    if errors:
        lines = [f"key {_where(e)}: {_message(e)}" for e in errors]
        raise DataError(f"{path}: invalid explanations:\n  " + "\n  ".join(lines))
    return tuple(_entry(n, raw) for n, raw in enumerate(data["explanations"], 1))


def _entry(number: int, raw: dict[str, Any]) -> Explanation:
    return Explanation(
        entry=number,
        old=raw["old"],
        new=raw["new"],
        kind=raw["kind"],
        explanation=" ".join(raw["explanation"].split()),
        evidence=tuple(raw["evidence"]),
        clause=raw.get("clause", ""),
        test=raw.get("test", ""),
        experiment=raw.get("experiment", ""),
        layouts=tuple(raw.get("layouts", ())),
    )


def refs(side: Side, *known: str) -> tuple[str, ...]:
    """The names a side's version goes by: as recorded, its first word, and `known`.

    The upstream profile records `v4.1.2 (commit 16a52d67daf2)`, so the first
    word is the tag (or `git describe` output); a qualification adds its git ref.
    """
    words = side.version.split()
    return tuple(dict.fromkeys(r for r in (side.version, *words[:1], *known) if r))


def _any(pattern: str, names: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for name in names)


def _layout_ok(entry: Explanation, layout: str) -> bool:
    return not entry.layouts or layout in entry.layouts


def matches_item(entry: Explanation, change: ItemChange) -> bool:
    """Whether `entry` selects this item change (refs are checked by `apply`)."""
    item = change.new
    clauses = (*change.old.clauses, *item.clauses)
    return (
        not entry.experiment
        and entry.kind == change.kind
        and _layout_ok(entry, item.layout)
        and (not entry.clause or _any(entry.clause, clauses))
        and (
            not entry.test
            or _any(entry.test, (item.short_name, item.test_id, item.nodeid))
        )
    )


def matches_clause(
    entry: Explanation, change: ClauseChange, tests: Iterable[str]
) -> bool:
    """Whether `entry` selects this clause change, `tests` naming the tests behind it."""
    return (
        not entry.experiment
        and entry.kind == change.kind
        and _layout_ok(entry, change.layout)
        and (not entry.clause or fnmatchcase(change.clause, entry.clause))
        and (not entry.test or _any(entry.test, tests))
    )


def matches_case(entry: Explanation, change: ItemChange) -> bool:
    """Whether `entry` selects this chaos case change (its experiment, kind, layout)."""
    return (
        bool(entry.experiment)
        and entry.kind == change.kind
        and _layout_ok(entry, change.new.layout)
        and fnmatchcase(change.new.short_name, entry.experiment)
    )


def _clause_tests(diff: ReportDiff, change: ClauseChange) -> set[str]:
    """Short names citing the clause in the new report, and node ids of items behind it."""
    found = set(change.tests)
    for item in [c.new for c in diff.items] + list(diff.added):
        if item.layout == change.layout and change.clause in item.clauses:
            found |= {item.short_name, item.test_id, item.nodeid}
    return found


def _first_for_clause(
    entries: Sequence[Explanation], diff: ReportDiff, change: ClauseChange
) -> Explanation | None:
    tests = _clause_tests(diff, change)
    return next((e for e in entries if matches_clause(e, change, tests)), None)


def _explained(
    changes: Sequence[ItemChange],
    entries: Sequence[Explanation],
    matches: Callable[[Explanation, ItemChange], bool],
) -> list[ItemChange]:
    """Copies of `changes` (items or chaos cases), each with the first entry it matches."""
    return [
        dataclasses.replace(
            c, explanation=next((e for e in entries if matches(e, c)), None)
        )
        for c in changes
    ]


def apply(
    diff: ReportDiff,
    entries: Sequence[Explanation],
    *,
    source: str,
    old_refs: Sequence[str] = (),
    new_refs: Sequence[str] = (),
) -> ReportDiff:
    """A copy of `diff` whose matching changes carry their explanation (first entry wins).

    `old_refs` and `new_refs` are names of each side's version known beside the
    report's own (a qualification's git refs); `source` names the file.
    """
    olds, news = refs(diff.old, *old_refs), refs(diff.new, *new_refs)
    applicable = [e for e in entries if _any(e.old, olds) and _any(e.new, news)]
    items = _explained(diff.items, applicable, matches_item)
    clauses = [
        dataclasses.replace(c, explanation=_first_for_clause(applicable, diff, c))
        for c in diff.clauses
    ]
    chaos = diff.chaos
    if chaos is not None:
        cases = _explained(chaos.cases, applicable, matches_case)
        chaos = dataclasses.replace(chaos, cases=cases)
    matched = [c.explanation for c in items] + [c.explanation for c in clauses]
    matched += [c.explanation for c in chaos.cases] if chaos is not None else []
    used = {e.entry for e in matched if e is not None}
    return dataclasses.replace(
        diff,
        items=items,
        clauses=clauses,
        chaos=chaos,
        explanations=Explanations(
            source=source,
            used=tuple(e for e in applicable if e.entry in used),
            unused=tuple(e for e in applicable if e.entry not in used),
            other_versions=tuple(e for e in entries if e not in applicable),
        ),
    )
