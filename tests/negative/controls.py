"""The negative-control table, `controls.yaml`: faults, the clauses they break, their tests.

Each row names one deliberate fault of the reference implementation
(`WPC_REFERENCE_FAULT`), the spec clauses it breaks, the suite tests that must fail
against it (killers, each a ShortName in one layout) and a few that must still pass
(canaries: the fault breaks its clause and nothing else). A row whose killer does not
exist yet, or does not fail, stays in the table as `status: pending` with a reason.
A fault that only a chaos experiment can catch is `status: chaos`: listed so that the
table covers every fault, judged by tests/chaos, and left out of this suite's score.

`load()` checks the file against `controls.schema.json` and then against what exists:
the reference implementation's fault names, the suite's ShortNames and the spec's
clause IDs. Any mismatch is a `ControlsError` naming the row and the value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conformance import spec as specs
from conformance.harness.cluster import kube
from conformance.plugin.state import markers
from conformance.report.items import identity

TABLE_PATH = Path(__file__).with_name("controls.yaml")
SCHEMA_PATH = Path(__file__).with_name("controls.schema.json")
ACTIVE = "active"
PENDING = "pending"
CHAOS = "chaos"
"""Broken only under a fault: a chaos experiment catches it (tests/chaos), outside this
suite's mutation score, which the suite is expected to pass."""


class ControlsError(ValueError):
    """The table is malformed or names something that does not exist."""


@dataclass(frozen=True, order=True)
class TestRef:
    """One suite test in one layout, e.g. `HelloWorld[initless]`."""

    __test__ = False  # a value, not a pytest test class, despite its name

    short_name: str
    layout: str

    @property
    def label(self) -> str:
        """`ShortName[layout]`, as the node IDs show the layout."""
        return f"{self.short_name}[{self.layout}]"

    def path(self, suite_dir: Path = identity.SUITE_DIR) -> Path:
        """The test file: `HelloWorld` -> `<suite>/status/test_hello_world.py`."""
        name = f"test_{kube.kebab(self.short_name).replace('-', '_')}.py"
        return identity.suite_file(name, suite_dir)


@dataclass(frozen=True)
class Control:
    """One row of the table."""

    fault: str
    clauses: tuple[str, ...]
    """Clause IDs the fault breaks; a killer counts when its failed assertion names one."""
    killers: tuple[TestRef, ...]
    canaries: tuple[TestRef, ...]
    status: str = ACTIVE
    reason: str = ""
    timeout_scale: float = 1.0
    """`--timeout-scale` of the fault's run: at least 1, as for every run."""
    slice: bool = True
    no_family_canary: str = ""
    """Why no test of the row's clause families survives the fault (empty: one must)."""
    """Whether `make test` runs the row; `make negative-controls` runs them all."""

    @property
    def tests(self) -> tuple[TestRef, ...]:
        """Killers, then canaries."""
        return self.killers + self.canaries

    @property
    def layouts(self) -> tuple[str, ...]:
        """Layouts the row's tests run in (the instances to install), sorted."""
        return tuple(sorted({t.layout for t in self.tests}))


@dataclass(frozen=True)
class Known:
    """What a table may name."""

    faults: frozenset[str]
    short_names: frozenset[str]
    levels: Mapping[str, str]
    """Active clause ID -> level (MUST, SHOULD, MAY)."""

    @property
    def must(self) -> frozenset[str]:
        """The active MUST clauses: the mutation score's denominator."""
        return frozenset(c for c, level in self.levels.items() if level == "MUST")

    @classmethod
    def discover(cls, suite_dir: Path = identity.SUITE_DIR) -> Known:
        """Fault names of the reference implementation, the suite's tests, the spec."""
        from reference_impl.controller import faults

        spec = specs.load()
        return cls(
            faults=frozenset(faults.known_names()),
            short_names=frozenset(
                markers.short_name_for(p) for p in identity.suite_files(suite_dir)
            ),
            levels={r.id: str(r.level) for r in spec.requirements if r.active},
        )


def _check_schema(data: object, source: str) -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(data),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        lines = [
            f"{'.'.join(str(p) for p in e.absolute_path) or '<top>'}: {e.message}"
            for e in errors
        ]
        raise ControlsError(f"{source}: invalid table:\n  " + "\n  ".join(lines))


def _refs(items: list[dict[str, str]]) -> tuple[TestRef, ...]:
    return tuple(TestRef(short_name=i["test"], layout=i["layout"]) for i in items)


def _problems(row: Control, known: Known) -> list[str]:
    problems = []
    if row.fault not in known.faults:
        problems.append(
            f"unknown fault {row.fault!r} (known: {', '.join(sorted(known.faults))})"
        )
    problems += [f"unknown clause {c}" for c in row.clauses if c not in known.levels]
    problems += [
        f"unknown test {t.short_name} (no {t.path().name} in the suite)"
        for t in row.tests
        if t.short_name not in known.short_names
    ]
    both = sorted(set(row.killers) & set(row.canaries))
    problems += [f"{t.label} is both a killer and a canary" for t in both]
    if row.status == ACTIVE and not row.killers:
        problems.append("an active row needs at least one killer")
    if row.status == ACTIVE and not row.canaries and not row.reason.strip():
        problems.append("an active row without canaries needs a reason why none passes")
    if row.status in (PENDING, CHAOS) and not row.reason.strip():
        problems.append(f"a {row.status} row needs a reason")
    return problems


def parse(
    data: object, *, known: Known, source: str = "<table>"
) -> tuple[Control, ...]:
    """Validate a loaded table; ControlsError lists every problem with its row."""
    _check_schema(data, source)
    assert isinstance(data, dict)
    rows: list[Control] = []
    problems: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(data["controls"]):
        row = Control(
            fault=item["fault"],
            clauses=tuple(item["clauses"]),
            killers=_refs(item["killers"]),
            canaries=_refs(item["canaries"]),
            status=item.get("status", ACTIVE),
            reason=item.get("reason", ""),
            timeout_scale=float(item.get("timeoutScale", 1.0)),
            slice=bool(item.get("slice", True)),
            no_family_canary=item.get("noFamilyCanary", ""),
        )
        found = _problems(row, known)
        if row.fault in seen:
            found.append("the fault already has a row")
        seen.add(row.fault)
        problems += [f"controls[{i}] ({row.fault}): {p}" for p in found]
        rows.append(row)
    if problems:
        raise ControlsError(f"{source}: invalid table:\n  " + "\n  ".join(problems))
    return tuple(rows)


def load(path: Path = TABLE_PATH, *, known: Known | None = None) -> tuple[Control, ...]:
    """Read and validate the table (against `Known.discover()` unless given)."""
    try:
        data: Any = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ControlsError(f"{path}: cannot read the table: {exc}") from exc
    return parse(data, known=known or Known.discover(), source=str(path))
