"""Two ConformanceReports in, one `ReportDiff` out: pure data, no I/O.

Why items are keyed by test id (`conformance.report.items.identity`, never pytest's
node ID, which follows the directory a run started in) and layout: the same scenario runs once per
layout and can regress in one only. A clause's verdict in a layout is the worst
outcome of the tests citing it there (failed or error beats passed, and a
clause whose tests were all skipped is skipped), so a clause regresses exactly
when one of its tests does, and a clause only the new report names is "added".

What the report format records decides what is compared: per test it has the
first try's outcome and the number of attempts, so first-try changes are
listed; it has one duration per test but no per-phase timings, so durations are
compared and the absence of phases is said, not invented.

A change can also carry an `Explanation`: a person's recorded reason why it is
expected (`explaining` matches a file of them), so a known regression stays
listed but no longer makes the diff a regression.

A qualification that also ran the chaos suite carries a `ChaosDiff` (made by
`chaoscases`): the same changes, of chaos cases, in the same model.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from conformance.report.items import identity

NOT_RERUN = "not rerun"
"""Every differing item's rerun status until a cluster run (make qualify) reruns it."""
CONFIRMED = "confirmed"
"""Rerun: each version gave its own verdict again every time, so the change is real."""
FLAKY = "flaky"
"""Rerun: some version's verdict flipped from run to run, so the change proves nothing."""
PHASES_NOT_RECORDED = (
    "not recorded: a ConformanceReport has one duration per test and no phase "
    "timings, so whole-test durations are compared instead"
)
BAD = frozenset({"failed", "error"})


@dataclass(frozen=True)
class Item:
    """One test in one layout, as a report recorded it."""

    test_id: str
    """The stable identity (`conformance.report.items.identity`), mapped for old reports."""
    nodeid: str
    layout: str
    short_name: str
    clauses: tuple[str, ...]
    outcome: str
    first_outcome: str
    attempts: int
    duration: float

    @property
    def key(self) -> tuple[str, str]:
        """What identifies the item across reports, wherever each was run from."""
        return (self.test_id, self.layout)


@dataclass(frozen=True)
class RerunRecord:
    """One verdict of a differing item when run again against one of the two versions."""

    side: str
    """old or new: which version ran."""
    round: int
    """1, 2, ...: the rerun's number (the original runs are not records)."""
    outcome: str
    """The item's final outcome in that run, or `absent` if the run's report lacks it."""
    report: str
    """The rerun's ConformanceReport: the evidence."""


ABSENT = "absent"
"""A rerun record's outcome when the rerun's report does not hold the item."""


@dataclass(frozen=True)
class Explanation:
    """One entry of an explanations file: why a change between two versions is expected.

    Every selector is a glob (`fnmatch`, case-sensitive); an empty one matches
    anything, but an entry names a clause, a test or both, or else a chaos
    experiment (and then neither).
    """

    entry: int
    """Its position in its file, from 1: how the table and the YAML name it."""
    old: str
    """Glob over the old side's refs (e.g. `v4.1.0`, `v4.1.*`)."""
    new: str
    """Glob over the new side's refs."""
    kind: str
    """regression, fix or changed: the kind of change it explains."""
    explanation: str
    evidence: tuple[str, ...]
    """Where to check it: paths, upstream commits and issues."""
    clause: str = ""
    """Glob over clause ids (WPC-FINALIZER-009), or '' for any."""
    test: str = ""
    """Glob over a test's short name or node id, or '' for any."""
    experiment: str = ""
    """Glob over chaos experiment names: the entry explains chaos cases only."""
    layouts: tuple[str, ...] = ()
    """The layouts it applies to, or () for every layout."""

    def describe(self) -> str:
        """`entry 1: regression WPC-X / TestName [legacy] (v4.1.0 -> v4.1.*)`, for tables."""
        selector = " / ".join(
            s
            for s in (
                self.clause,
                self.test,
                self.experiment and f"chaos {self.experiment}",
            )
            if s
        )
        where = f" [{', '.join(self.layouts)}]" if self.layouts else ""
        return (
            f"entry {self.entry}: {self.kind} {selector}{where} "
            f"({self.old} -> {self.new})"
        )


@dataclass(frozen=True)
class Explanations:
    """Which entries of an explanations file this diff used: the file's audit trail."""

    source: str
    """The file the entries came from."""
    used: tuple[Explanation, ...] = ()
    """Entries that explained at least one change."""
    unused: tuple[Explanation, ...] = ()
    """Entries for these two versions that matched no change: stale, or wrong."""
    other_versions: tuple[Explanation, ...] = ()
    """Entries whose old or new refs do not match these reports' (not applicable)."""


@dataclass(frozen=True)
class Rerun:
    """What rerunning a differing item showed: its status and every verdict seen."""

    status: str = NOT_RERUN
    """not rerun, confirmed or flaky."""
    records: tuple[RerunRecord, ...] = ()

    def outcomes(self, side: str) -> list[str]:
        """The rerun outcomes of one side (old or new), in round order."""
        return [
            r.outcome
            for r in sorted(self.records, key=lambda r: r.round)
            if r.side == side
        ]


@dataclass(frozen=True)
class ItemChange:
    """An item whose final outcome differs between the reports."""

    kind: str
    """regression (passed -> failed/error), fix (failed/error -> passed) or changed."""
    old: Item
    new: Item
    rerun: Rerun = field(default_factory=Rerun)
    explanation: Explanation | None = None
    """The recorded reason this change is expected, if an entry matched it."""

    @property
    def flaky(self) -> bool:
        """Whether reruns showed a verdict of either version flipping."""
        return self.rerun.status == FLAKY

    @property
    def explained(self) -> bool:
        """Whether an explanation entry matched this change."""
        return self.explanation is not None


@dataclass(frozen=True)
class FirstTryChange:
    """An item whose first try and final verdict disagree in either report."""

    old: Item | None
    new: Item | None

    def __post_init__(self) -> None:
        if self.old is None and self.new is None:
            raise ValueError("a first-try change needs the item from one report")

    @property
    def item(self) -> Item:
        """The new report's record of the item, else the old one's."""
        item = self.new if self.new is not None else self.old
        if item is None:
            raise ValueError("a first-try change needs the item from one report")
        return item


@dataclass(frozen=True)
class ClauseChange:
    """A clause whose verdict in a layout differs between the reports."""

    kind: str
    clause: str
    layout: str
    old: str
    new: str
    tests: tuple[str, ...]
    """The new report's tests citing the clause in that layout (short names)."""
    flaky: bool = False
    """True when every item change behind it flipped on rerun (it proves nothing)."""
    explanation: Explanation | None = None
    """The recorded reason this change is expected, if an entry matched it."""

    @property
    def explained(self) -> bool:
        """Whether an explanation entry matched this change."""
        return self.explanation is not None


@dataclass(frozen=True)
class TimingChange:
    """An item whose duration moved by at least the ratio, either way."""

    old: Item
    new: Item

    @property
    def ratio(self) -> float:
        """New duration over old."""
        return self.new.duration / self.old.duration


@dataclass(frozen=True)
class Side:
    """What the diff says about one of the two reports as a whole."""

    path: str
    implementation: str
    version: str
    date: str
    suite_commit: str
    spec_version: str
    result: str
    first_try: dict[str, int]
    final: dict[str, int]


@dataclass(frozen=True)
class ChaosSide:
    """What the chaos diff says about one of the two ChaosReports."""

    path: str
    implementation: str
    date: str
    summary: Mapping[str, int]


@dataclass(frozen=True)
class NotApplicable:
    """A case not applicable on at least one side, with the reason given."""

    name: str
    layout: str
    old: str | None
    """The old report's outcome, or None when it has no such case."""
    new: str | None
    reason: str


@dataclass(frozen=True)
class ChaosDiff:
    """Every chaos case that changed between the two builds' ChaosReports."""

    old: ChaosSide
    new: ChaosSide
    cases: list[ItemChange] = field(default_factory=list)
    added: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[ItemChange]:
        """The case changes of one kind (regression, fix, changed)."""
        return [c for c in self.cases if c.kind == kind]

    @property
    def regressed(self) -> bool:
        """Whether a case regressed that did not flip on rerun and is not explained."""
        return any(not (c.flaky or c.explained) for c in self.of_kind("regression"))

    def counts(self) -> dict[str, int]:
        """The verdict's counts: each difference confirmed, flaky, explained or not rerun.

        Explained is counted apart from the rerun status (an explained change
        was rerun too); not-applicable cases are listed, not counted.
        """
        return {
            "differences": len(self.cases),
            "regressions": len(self.of_kind("regression")),
            "fixes": len(self.of_kind("fix")),
            "otherChanges": len(self.of_kind("changed")),
            "confirmed": sum(1 for c in self.cases if c.rerun.status == CONFIRMED),
            "flaky": sum(1 for c in self.cases if c.rerun.status == FLAKY),
            "notRerun": sum(1 for c in self.cases if c.rerun.status == NOT_RERUN),
            "explained": sum(1 for c in self.cases if c.explained),
            "added": len(self.added),
            "removed": len(self.removed),
            "notApplicable": len(self.not_applicable),
        }


@dataclass(frozen=True)
class ReportDiff:
    """Everything that changed between an old and a new report."""

    old: Side
    new: Side
    timing_ratio: float
    min_seconds: float
    items: list[ItemChange] = field(default_factory=list)
    added: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)
    clauses: list[ClauseChange] = field(default_factory=list)
    clauses_added: list[str] = field(default_factory=list)
    clauses_removed: list[str] = field(default_factory=list)
    features_claimed: list[str] = field(default_factory=list)
    features_unclaimed: list[str] = field(default_factory=list)
    layouts_claimed: list[str] = field(default_factory=list)
    layouts_unclaimed: list[str] = field(default_factory=list)
    first_try: list[FirstTryChange] = field(default_factory=list)
    timings: list[TimingChange] = field(default_factory=list)
    explanations: Explanations | None = None
    """The explanations file applied, if any (a plain `diff` applies none)."""
    chaos: ChaosDiff | None = None
    """The chaos suite's cases compared, when a qualification ran it on both builds."""

    def of_kind(self, kind: str) -> list[ItemChange]:
        """The item changes of one kind (regression, fix, changed)."""
        return [c for c in self.items if c.kind == kind]

    def clauses_of_kind(self, kind: str) -> list[ClauseChange]:
        """The clause changes of one kind (regression, fix, changed)."""
        return [c for c in self.clauses if c.kind == kind]

    @property
    def regressed(self) -> bool:
        """Whether any item or clause went from passed to failed or error.

        A change that flipped on rerun (flaky) or that an explanation entry
        matched is not counted: it is listed, with its evidence or explanation,
        but does not make the diff a regression. Chaos cases count the same way.
        """
        if self.chaos is not None and self.chaos.regressed:
            return True
        return any(
            not (c.flaky or c.explained) for c in self.of_kind("regression")
        ) or any(
            not (c.flaky or c.explained) for c in self.clauses_of_kind("regression")
        )

    @property
    def rerun(self) -> bool:
        """Whether any differing item has been rerun (a qualification, not an offline diff)."""
        return any(c.rerun.status != NOT_RERUN for c in self.items)


def items_of(report: dict[str, Any]) -> dict[tuple[str, str], Item]:
    """Every test of a report, keyed by (test id, layout)."""
    items: dict[tuple[str, str], Item] = {}
    for test in report["tests"]:
        item = Item(
            test_id=identity.of_test(test),
            nodeid=test["nodeid"],
            layout=test["layout"],
            short_name=test["shortName"],
            clauses=tuple(test["clauses"]),
            outcome=test["outcome"],
            first_outcome=test["firstOutcome"],
            attempts=test["attempts"],
            duration=float(test["durationSeconds"]),
        )
        items[item.key] = item
    return items


def change_kind(old: str, new: str) -> str:
    """regression, fix or changed, for two different outcomes."""
    if old == "passed" and new in BAD:
        return "regression"
    if old in BAD and new == "passed":
        return "fix"
    return "changed"


def clause_verdicts(items: Iterable[Item]) -> dict[tuple[str, str], str]:
    """The verdict of every (clause, layout) the items cite: worst outcome wins."""
    outcomes: dict[tuple[str, str], set[str]] = {}
    for item in items:
        for clause in item.clauses:
            outcomes.setdefault((clause, item.layout), set()).add(item.outcome)
    return {key: _verdict(seen) for key, seen in outcomes.items()}


def _verdict(outcomes: set[str]) -> str:
    for outcome in ("error", "failed", "passed"):
        if outcome in outcomes:
            return outcome
    return "skipped"


def clause_ids(report: dict[str, Any]) -> set[str]:
    """Every clause a report names: in its coverage ledger or cited by a test."""
    coverage = report["coverage"]
    ids = {entry["id"] for entry in coverage["covered"]}
    ids |= {gap["id"] for gap in coverage["uncovered"]}
    ids |= {gap["id"] for gap in coverage["partiallyCovered"]}
    ids |= {c for test in report["tests"] for c in test["clauses"]}
    return ids


def side(report: dict[str, Any], path: str) -> Side:
    """The summary of one report the diff carries."""
    return Side(
        path=path,
        implementation=report["implementation"]["name"],
        version=report["implementation"]["version"],
        date=report["date"],
        suite_commit=report["suite"]["commit"],
        spec_version=report["suite"]["specVersion"],
        result=report["result"],
        first_try=dict(report["attempts"]["firstTry"]),
        final=dict(report["attempts"]["final"]),
    )


def _moved(old: Item, new: Item, ratio: float, min_seconds: float) -> bool:
    if (
        max(old.duration, new.duration) < min_seconds
        or min(old.duration, new.duration) <= 0
    ):
        return False
    return new.duration >= old.duration * ratio or old.duration >= new.duration * ratio


def compare(
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    old_path: str = "old",
    new_path: str = "new",
    timing_ratio: float = 1.5,
    min_seconds: float = 1.0,
) -> ReportDiff:
    """The diff from `old` to `new` (both already validated reports)."""
    if timing_ratio <= 1.0:
        raise ValueError(f"timing ratio must be above 1, got {timing_ratio}")
    before, after = items_of(old), items_of(new)
    shared = [key for key in after if key in before]
    diff = ReportDiff(
        old=side(old, old_path),
        new=side(new, new_path),
        timing_ratio=timing_ratio,
        min_seconds=min_seconds,
    )
    for key in shared:
        a, b = before[key], after[key]
        if a.outcome != b.outcome:
            diff.items.append(ItemChange(change_kind(a.outcome, b.outcome), a, b))
        if _moved(a, b, timing_ratio, min_seconds):
            diff.timings.append(TimingChange(a, b))
    diff.added.extend(after[k] for k in after if k not in before)
    diff.removed.extend(before[k] for k in before if k not in after)
    for key in sorted(before.keys() | after.keys()):
        a_item, b_item = before.get(key), after.get(key)
        if any(
            i is not None and i.first_outcome != i.outcome for i in (a_item, b_item)
        ):
            diff.first_try.append(FirstTryChange(a_item, b_item))
    old_clauses, new_clauses = (
        clause_verdicts(before.values()),
        clause_verdicts(after.values()),
    )
    for clause, layout in sorted(old_clauses.keys() & new_clauses.keys()):
        was, now = old_clauses[(clause, layout)], new_clauses[(clause, layout)]
        if was != now:
            tests = sorted(
                {
                    i.short_name
                    for i in after.values()
                    if clause in i.clauses and i.layout == layout
                }
            )
            diff.clauses.append(
                ClauseChange(
                    change_kind(was, now), clause, layout, was, now, tuple(tests)
                )
            )
    ids_before, ids_after = clause_ids(old), clause_ids(new)
    diff.clauses_added.extend(sorted(ids_after - ids_before))
    diff.clauses_removed.extend(sorted(ids_before - ids_after))
    _claims(diff, old["implementation"], new["implementation"])
    return diff


def _claims(diff: ReportDiff, old: dict[str, Any], new: dict[str, Any]) -> None:
    was, now = set(old["claimedFeatures"]), set(new["claimedFeatures"])
    diff.features_claimed.extend(sorted(now - was))
    diff.features_unclaimed.extend(sorted(was - now))
    was, now = set(old["claimedLayouts"]), set(new["claimedLayouts"])
    diff.layouts_claimed.extend(sorted(now - was))
    diff.layouts_unclaimed.extend(sorted(was - now))
