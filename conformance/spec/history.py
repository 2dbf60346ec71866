"""Read `history.yaml`: upstream's fixed bugs, each tied to a clause and a scenario.

Why it is data: a bug an implementation really shipped is the best test of a
scenario, so each fix names the tag that last had the bug, the first that did
not, the clause it breaks and the scenario that should catch it; a later
`make history` can build both tags and prove the scenario tells them apart.

Validation is strict because that run will trust the file: the JSON schema
beside it first, then what a schema cannot say (unique ids and commits, the
issue and PR numbers the subject names), each error naming the file and the
entry. `check_references` then holds every clause and scenario named to the
spec and the suite as they are now. A fix may also name a chaos experiment as
its killer (`experiment`); `wpc.history.experiments` checks that one, since
the suite never imports chaos.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from conformance.spec._errors import SpecError
from conformance.spec._loading import read_yaml
from conformance.spec._models import Spec

HISTORY_PATH = Path(__file__).with_name("history.yaml")
"""The shipped history, loaded when `load()` gets no path."""
SCHEMA_PATH = Path(__file__).with_name("history.schema.json")
SUITE_ROOT = Path(__file__).parent.parent.parent
"""The directory `scenario` paths (conformance/tests/...) are relative to."""

_ISSUE = re.compile(r"\bFixes #(\d+)")
_PR = re.compile(r"\(#(\d+)\)\s*$")


@dataclass(frozen=True)
class Backport:
    """The same fix as cherry-picked to another release line."""

    commit: str
    last_tag_with_bug: str
    first_tag_without_bug: str


@dataclass(frozen=True)
class Experiment:
    """A chaos experiment named as a fix's killer, judged as a scenario is."""

    name: str
    """Its report name (chaos/experiments/<name>.yaml); `wpc.history.experiments`
    holds it to the experiments that exist (this package never imports chaos)."""
    layouts: tuple[str, ...]
    """Where it is judged; () for every layout the run covers."""
    why: str


@dataclass(frozen=True)
class Fix:
    """One upstream fix and what WPC says about the bug it removed."""

    id: str
    commit: str
    subject: str
    issue: int | None
    pr: int | None
    last_tag_with_bug: str
    first_tag_without_bug: str
    backports: tuple[Backport, ...]
    area: str
    bug: str
    in_scope: bool
    scope_reason: str | None
    clause: str | None
    proposed_clause: str | None
    scenario: str | None
    observable: bool
    reason: str | None
    experiment: Experiment | None = None
    """A chaos experiment that kills it too (or instead of a scenario)."""

    @property
    def commits(self) -> tuple[str, ...]:
        """The fix's own commit and its backports' commits."""
        return (self.commit, *(b.commit for b in self.backports))


@dataclass(frozen=True)
class History:
    """The validated history file."""

    repository: str
    from_tag: str
    to_tag: str
    fixes: tuple[Fix, ...]


@dataclass(frozen=True)
class Counts:
    """How many fixes are in scope, observable and covered by a scenario."""

    total: int
    in_scope: int
    observable: int
    with_scenario: int
    without_scenario: int
    with_experiment: int = 0
    """In-scope fixes a chaos experiment is named for (with or without a scenario)."""


def load(path: Path | None = None) -> History:
    """Load and validate a history file (the shipped one by default)."""
    source = path or HISTORY_PATH
    return build(read_yaml(source), source=str(source))


def build(data: Any, *, source: str = "history.yaml") -> History:
    """Validate already-parsed data against the schema and the rules beside it."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise SpecError(
            f"{source}: {_where(data, error.absolute_path)}: {error.message}"
        )
    fixes = tuple(_fix(entry) for entry in data["entries"])
    _check_unique(source, "id", [f.id for f in fixes])
    _check_unique(source, "commit", [c for f in fixes for c in f.commits])
    for fix in fixes:
        _check_numbers(source, fix)
    return History(
        repository=data["repository"],
        from_tag=data["from_tag"],
        to_tag=data["to_tag"],
        fixes=fixes,
    )


def _where(data: Any, path: Iterable[str | int]) -> str:
    """A schema error's location, naming the entry by its id when it has one."""
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "entries" and isinstance(parts[1], int):
        entry = data["entries"][parts[1]]
        name = entry.get("id") if isinstance(entry, dict) else None
        head = f"entries[{parts[1]}]" + (f" ({name})" if name else "")
        return ".".join([head, *map(str, parts[2:])])
    return ".".join(map(str, parts)) or "the document"


def _fix(entry: dict[str, Any]) -> Fix:
    return Fix(
        id=entry["id"],
        commit=entry["commit"],
        subject=entry["subject"],
        issue=entry["issue"],
        pr=entry["pr"],
        last_tag_with_bug=entry["last_tag_with_bug"],
        first_tag_without_bug=entry["first_tag_without_bug"],
        backports=tuple(Backport(**b) for b in entry["backports"]),
        area=entry["area"],
        bug=entry["bug"],
        in_scope=entry["in_scope"],
        scope_reason=entry.get("scope_reason"),
        clause=entry["clause"],
        proposed_clause=entry["proposed_clause"],
        scenario=entry["scenario"],
        observable=entry["observable"],
        reason=entry.get("reason"),
        experiment=_experiment(entry.get("experiment")),
    )


def _experiment(raw: dict[str, Any] | None) -> Experiment | None:
    if raw is None:
        return None
    return Experiment(
        name=raw["name"],
        layouts=tuple(raw.get("layouts", ())),
        why=" ".join(raw["why"].split()),
    )


def _check_unique(source: str, key: str, values: list[str]) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise SpecError(f"{source}: {key} {value!r} appears more than once")
        seen.add(value)


def _check_numbers(source: str, fix: Fix) -> None:
    """issue and pr must be the numbers the subject names, so neither is guessed."""
    issue = _ISSUE.search(fix.subject)
    pr = _PR.search(fix.subject)
    expected = {
        "issue": int(issue.group(1)) if issue else None,
        "pr": int(pr.group(1)) if pr else None,
    }
    for key, want in expected.items():
        got = getattr(fix, key)
        if got != want:
            raise SpecError(
                f"{source}: entries ({fix.id}).{key}: is {got!r} but the subject "
                f"names {want!r}"
            )


def check_references(
    history: History, spec: Spec, *, root: Path = SUITE_ROOT
) -> list[str]:
    """Problems with the clauses and scenarios the fixes name; empty when none.

    A clause must be an active clause of the spec; a scenario
    `conformance/tests/<area>/<file>.py::<test>` must be a file under `root` that
    defines that test function (read with `ast`, so nothing is imported).
    """
    active = {r.id for r in spec.active()}
    problems: list[str] = []
    for fix in history.fixes:
        if fix.clause is not None and fix.clause not in active:
            problems.append(f"{fix.id}: clause {fix.clause} is not an active clause")
        if fix.scenario is not None and not _defines(root, fix.scenario):
            problems.append(f"{fix.id}: scenario {fix.scenario} does not exist")
    return problems


def _defines(root: Path, scenario: str) -> bool:
    file, _, name = scenario.partition("::")
    path = root / file
    if not path.is_file():
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        for node in tree.body
    )


def counts(history: History) -> Counts:
    """In scope / observable / with or without a scenario, over in-scope fixes.

    Observable and scenario counts are of in-scope fixes only: an out-of-scope
    bug needs neither.
    """
    scoped = [f for f in history.fixes if f.in_scope]
    covered = sum(1 for f in scoped if f.scenario is not None)
    return Counts(
        total=len(history.fixes),
        in_scope=len(scoped),
        observable=sum(1 for f in scoped if f.observable),
        with_scenario=covered,
        without_scenario=len(scoped) - covered,
        with_experiment=sum(1 for f in scoped if f.experiment is not None),
    )
