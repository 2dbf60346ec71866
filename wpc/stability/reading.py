"""One finished run, suite or chaos, as what the stability comparison needs of it.

A ConformanceReport's items are its `tests`, keyed by their stable identity
(`ShortName[layout]`, `conformance.report.items.identity`); a ChaosReport's are its
experiments, keyed the same way by experiment and layout
(`controller-cut-off-from-apiserver[initless]`). Of each item the comparison
keeps the outcome, the duration and, where it did not pass, what the report
says about it. The file is read and parsed once, then schema-checked as the
diff checks a report (`wpc.diff.reading`) or the chaos diff a ChaosReport
(`chaoscases`), each error naming the file; the rest of the document is kept
for the check that the runs are alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from chaos.reporting import junit_xml as chaos_junit
from chaos.suite import experimenting
from conformance.errors import DataError
from conformance.report.items import identity
from conformance.report.runs import documents
from conformance.report.scores import schemafiles
from wpc.diff import chaoscases
from wpc.diff import comparing
from wpc.diff import reading as diff_reading

CONFORMANCE = documents.KIND
CHAOS = chaoscases.KIND
KINDS = (CONFORMANCE, CHAOS)

SUITE_FAILURES = comparing.BAD
"""A suite item's outcomes that fail a run (pytest's exit 1): the diff's bad ones."""
CHAOS_FAILURES = chaos_junit.FAILURES | {"error"}
"""A chaos case's outcomes that fail `make chaos` (its JUnit failures and errors)."""


@dataclass(frozen=True)
class Observation:
    """One item in one run."""

    outcome: str
    seconds: float
    failed: bool
    """The outcome fails the run (failed, error; for chaos also injection-unverified)."""
    message: tuple[str, ...] = ()
    """What the report says of an item that did not pass, line by line."""


@dataclass(frozen=True)
class Run:
    """One finished run's report: its items by identity, and the document."""

    path: str
    kind: str
    document: dict[str, Any]
    items: dict[str, Observation]

    @property
    def implementation(self) -> str:
        """The implementation's profile name."""
        return str(self.document["implementation"]["name"])

    @property
    def interrupted(self) -> str | None:
        """Why the run was stopped early (a ConformanceReport's `interrupted`), or None."""
        found = self.document.get("interrupted")
        return str(found["reason"]) if isinstance(found, Mapping) else None


def _suite_items(document: Mapping[str, Any]) -> dict[str, Observation]:
    items = {}
    for test in document["tests"]:
        outcome = str(test["outcome"])
        failed = outcome in SUITE_FAILURES
        items[identity.of_test(test)] = Observation(
            outcome=outcome,
            seconds=float(test["durationSeconds"]),
            failed=failed,
            message=tuple(str(test["message"]).splitlines()) if failed else (),
        )
    return items


def chaos_id(entry: Mapping[str, Any]) -> str:
    """A chaos case's identity: `experiment[layout]`, as a suite item's."""
    return f"{entry['name']}[{entry['layout']}]"


def _chaos_items(document: Mapping[str, Any]) -> dict[str, Observation]:
    items = {}
    for entry in document["experiments"]:
        outcome = str(entry["outcome"])
        failed = outcome in CHAOS_FAILURES
        items[chaos_id(entry)] = Observation(
            outcome=outcome,
            seconds=float(entry["durationSeconds"]),
            failed=failed,
            message=tuple(experimenting.explain(dict(entry)).splitlines())
            if failed
            else (),
        )
    return items


def _chaos(path: Path, document: dict[str, Any]) -> Run:
    checked = chaoscases.checked(path, document)
    return Run(
        path=str(path), kind=CHAOS, document=checked, items=_chaos_items(checked)
    )


def read(path: Path) -> Run:
    """The run whose ConformanceReport or ChaosReport is at `path`; DataError if neither."""
    text = schemafiles.read_text(path, " or ".join(KINDS))
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(f"{path}: not valid YAML: {exc}") from exc
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind == CHAOS:
        assert isinstance(document, dict)
        return _chaos(path, document)
    if kind != CONFORMANCE:
        raise DataError(
            f"{path}: kind: expected {' or '.join(KINDS)}, got {kind!r} "
            "(give the reports of finished runs)"
        )
    # The diff's checks of a report (parsed once here): schema, identity of old ones.
    suite = diff_reading.checked(path, document)
    return Run(
        path=str(path), kind=CONFORMANCE, document=suite, items=_suite_items(suite)
    )
