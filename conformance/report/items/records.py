"""Per-test records assembled from pytest's reports, in the reporting process.

Workers attach `wpc_*` attributes to their `TestReport`s (plain JSON, so they
survive pytest-xdist's serialisation); `Results.add()` folds the setup, call and
teardown reports of each test into one `TestRecord`.

The suite never reruns a test, but a rerun plugin the user adds may
(pytest-rerunfailures and its `--reruns N`). It logs each failed
attempt's reports with outcome "rerun", stopping at the first failed phase (a
failed setup has no call; a failed call's teardown is not logged), and starts the
next attempt from setup. So a record keeps one phase map per attempt: a setup
report, or a phase the current attempt already has, opens the next one. The
first attempt's outcome stays beside the final one, so a flake is never hidden,
not even one whose setup failed first.

A failed or errored phase also carries its failure kind and the clauses its
assertion named (`conformance.report.items.outcomes.failure_kind`); the record keeps
those of its last attempt, the test body's ahead of setup's and teardown's.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from conformance.report.items import identity
from conformance.report.items.outcomes import FailureKind
from conformance.report.items.outcomes import Outcome
from conformance.report.items.outcomes import combine

MESSAGE_LIMIT = 4000
MESSAGE_HEAD = 1000
"""Of a message over MESSAGE_LIMIT, the characters kept from its start (the test's
own lines); the rest of the limit is kept from its end, where pytest puts the
exception and its `E` lines: the evidence a reader needs first."""

DECLARATION_ATTR = "wpc_declaration"
OUTCOME_ATTR = "wpc_outcome"
OBSERVATIONS_ATTR = "wpc_observations"
EVIDENCE_ATTR = "wpc_evidence"
FAILURE_ATTR = "wpc_failure"
"""{"kind": FailureKind value, "clauses": [clause IDs]} of a failed or errored phase."""
PHASES_ATTR = "wpc_phases"
"""{phase name: seconds} the harness timed during this pytest phase (`harness.cluster.timing`)."""


@dataclass
class TestRecord:
    """Everything the report needs about one test item."""

    __test__ = False  # a data class, not a pytest test class, despite its name

    nodeid: str
    short_name: str
    layout: str
    clauses: list[str]
    features: list[str]
    support: str
    """"Core" unless one of the test's features is Extended."""
    profiles: list[str]
    scenario: str
    """The identity without the layout parameter (`HelloWorld`): the same in every layout."""
    claimed: bool = True
    """Whether the run claimed every feature the item needs (else it is "not claimed")."""
    test_id: str = ""
    """The stable identity (`conformance.report.items.identity`): `HelloWorld[legacy]`."""
    kind: str = "scenario"
    """"scenario", or "divergence" for a cross-layout comparison check."""
    tries: list[dict[str, Outcome]] = field(default_factory=list)
    """Each attempt's phase outcomes ("setup", "call", "teardown"), in order."""
    message: str = ""
    duration: float = 0.0
    observations: dict[str, Any] | None = None
    evidence: list[str] = field(default_factory=list)
    failure: dict[str, Any] | None = None
    """The current attempt's failure: kind and clauses (see FAILURE_ATTR)."""
    phase_durations: dict[str, float] = field(default_factory=dict)
    """Seconds per pytest phase ("setup", "call", "teardown"), over all attempts."""
    phase_parts: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per pytest phase, the seconds the harness timed by name (PHASES_ATTR)."""

    def __post_init__(self) -> None:
        # A declaration without it (a worker older than the identity): the
        # node ID's, mapped as an old report's would be.
        if not self.test_id:
            self.test_id = identity.of_nodeid(self.nodeid, self.short_name)

    def log(self, when: str, outcome: Outcome) -> None:
        """Note one phase's outcome; a setup, or a phase seen already, opens an attempt."""
        if not self.tries or (
            self.tries[-1] and (when == "setup" or when in self.tries[-1])
        ):
            self.tries.append({})
            self.failure = None
        self.tries[-1][when] = outcome

    def note_failure(self, when: str, failure: dict[str, Any]) -> None:
        """Keep a phase's failure; the test body's wins over setup's and teardown's."""
        if self.failure is None or when == "call":
            self.failure = failure

    @property
    def failure_kind(self) -> FailureKind | None:
        """Why the item failed or errored (None when it passed or skipped).

        A failure with no recorded kind (a report from an older worker) is a
        harness error: nothing says an assertion failed.
        """
        if self.outcome not in (Outcome.FAILED, Outcome.ERROR):
            return None
        return FailureKind((self.failure or {}).get("kind", FailureKind.HARNESS_ERROR))

    @property
    def failed_clauses(self) -> list[str]:
        """The clause IDs the failed assertion named; empty unless it was one."""
        if self.failure_kind is not FailureKind.ASSERTION:
            return []
        return list((self.failure or {}).get("clauses", []))

    @property
    def outcome(self) -> Outcome:
        """The final outcome: the last attempt's phases combined."""
        return combine((self.tries[-1] if self.tries else {}).items())

    @property
    def first_outcome(self) -> Outcome:
        """The outcome the first attempt had (pass@1)."""
        return combine((self.tries[0] if self.tries else {}).items())

    @property
    def attempts(self) -> int:
        """How many times the test ran (1 unless a rerun plugin reran it)."""
        return max(1, len(self.tries))


def scenario_of(nodeid: str, layout: str) -> str:
    """`t.py::test_x[legacy-3]` -> `t.py::test_x[3]`: a test's ID across layouts."""
    base, sep, rest = nodeid.partition("[")
    if not sep:
        return nodeid
    ids = [part for part in rest.removesuffix("]").split("-") if part != layout]
    return base + (f"[{'-'.join(ids)}]" if ids else "")


def _message(report: Any) -> str:
    text = str(getattr(report, "longreprtext", "") or "")
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2]).removeprefix("Skipped: ")
    return shortened(text)


def shortened(text: str) -> str:
    """`text` within MESSAGE_LIMIT: its head and its tail, the middle named as cut."""
    if len(text) <= MESSAGE_LIMIT:
        return text
    tail = MESSAGE_LIMIT - MESSAGE_HEAD
    cut = len(text) - MESSAGE_HEAD - tail
    return f"{text[:MESSAGE_HEAD]}\n... ({cut} of {len(text)} characters cut) ...\n{text[-tail:]}"


class Results:
    """Accumulates TestRecords keyed by node ID, in arrival order."""

    def __init__(self) -> None:
        self._records: dict[str, TestRecord] = {}

    def add(self, report: Any) -> TestRecord | None:
        """Fold one pytest report in; reports of non-suite tests are ignored."""
        declaration = getattr(report, DECLARATION_ATTR, None)
        if declaration is None:
            return None
        record = self._records.get(report.nodeid)
        if record is None:
            record = TestRecord(nodeid=report.nodeid, **declaration)
            self._records[report.nodeid] = record
        outcome = Outcome(getattr(report, OUTCOME_ATTR, None) or _fallback(report))
        record.log(report.when, outcome)
        failure = getattr(report, FAILURE_ATTR, None)
        if failure is not None and outcome is not Outcome.PASSED:
            record.note_failure(report.when, failure)
        record.duration += float(report.duration)
        when = str(report.when)
        record.phase_durations[when] = record.phase_durations.get(when, 0.0) + float(
            report.duration
        )
        parts = record.phase_parts.setdefault(when, {})
        for name, seconds in (getattr(report, PHASES_ATTR, None) or {}).items():
            parts[name] = parts.get(name, 0.0) + float(seconds)
        if outcome is not Outcome.PASSED:
            message = _message(report)
            if message:
                record.message = (record.message + "\n" + message).strip()
        observations = getattr(report, OBSERVATIONS_ATTR, None)
        if observations is not None:
            record.observations = observations
        record.evidence.extend(getattr(report, EVIDENCE_ATTR, None) or [])
        return record

    def records(self) -> list[TestRecord]:
        """All records, in the order their first report arrived."""
        return list(self._records.values())

    def drop(self, nodeids: set[str]) -> None:
        """Forget these tests: an interruption cut them short.

        Counted, such a test would pass on its setup alone.
        """
        for nodeid in nodeids:
            self._records.pop(nodeid, None)


def _fallback(report: Any) -> str:
    if report.outcome == "rerun":
        return Outcome.FAILED.value
    if report.passed:
        return Outcome.PASSED.value
    if report.skipped:
        return Outcome.SKIPPED.value
    return Outcome.FAILED.value if report.when == "call" else Outcome.ERROR.value
