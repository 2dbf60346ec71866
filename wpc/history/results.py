"""The HistoryResult: every fix's verdict, the tags run, the substitutions, the score.

The score is fixed bugs caught / fixed bugs in scope (issue 17). Every in-scope
fix is in the denominator, whatever stopped it from being caught: no scenario
yet, not observable from outside the cluster, not run, not selected, missed or
broken after the fix. Out-of-scope fixes are in neither count. The document is
checked against `conformance/history-result.schema.json` before it is written,
so a reader (`conformance.report.scores.historical`) can trust it.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.report.runs import documents
from conformance.report.scores import historical
from conformance.report.scores import provenance
from conformance.spec.history import Fix
from wpc.history.plans import AFTER
from wpc.history.plans import BEFORE
from wpc.history.plans import CAUGHT
from wpc.history.plans import VERDICTS
from wpc.history.plans import Plan
from wpc.history.plans import TagRun
from wpc.history.verdicts import SideResult

COUNTING = (
    "caught / in scope: every in-scope fix is in the denominator, so one that is "
    "unobservable, has no scenario, was not run or not selected, was missed or "
    "failed after the fix counts as not caught; out-of-scope fixes count in neither"
)


@dataclass(frozen=True)
class KillerResult:
    """A chaos experiment's own verdict on a fix, with both sides' ChaosReports."""

    name: str
    layouts: tuple[str, ...]
    verdict: str
    reason: str
    evidence: str
    before: SideResult
    after: SideResult


@dataclass(frozen=True)
class EntryResult:
    """One fix's verdict, with both sides when it ran."""

    fix: Fix
    verdict: str
    reason: str
    evidence: str = ""
    before: SideResult | None = None
    """The scenario's before side (None without a scenario)."""
    after: SideResult | None = None
    experiment: KillerResult | None = None
    """The chaos experiment's own verdict, when the fix names one and ran."""


@dataclass(frozen=True)
class TagOutcome:
    """One tag's run: its report, or why it left none."""

    run: TagRun
    report: str | None
    error: str | None
    chaos_report: str | None = None
    """The chaos run's ChaosReport, when the tag's fixes name experiments."""
    chaos_error: str | None = None
    """Why the chaos run left no report."""


@dataclass(frozen=True)
class Score:
    """Fixed bugs caught / fixed bugs in scope."""

    caught: int
    in_scope: int

    @property
    def value(self) -> float | None:
        """The ratio, rounded to three places; None with nothing in scope."""
        return round(self.caught / self.in_scope, 3) if self.in_scope else None

    def text(self) -> str:
        """`2/15 (0.133)`."""
        ratio = "-" if self.value is None else f"{self.value:.3f}"
        return f"{self.caught}/{self.in_scope} ({ratio})"


def score(entries: Iterable[EntryResult]) -> Score:
    """The historical mutation score of a set of verdicts."""
    scoped = [e for e in entries if e.fix.in_scope]
    return Score(
        caught=sum(1 for e in scoped if e.verdict == CAUGHT), in_scope=len(scoped)
    )


def counts(entries: Iterable[EntryResult]) -> dict[str, int]:
    """Fixes per verdict, every verdict named (zero when none)."""
    seen = Counter(e.verdict for e in entries)
    return {verdict: seen.get(verdict, 0) for verdict in VERDICTS}


@dataclass(frozen=True)
class Outcome:
    """A finished `history run`."""

    plan: Plan
    tags: tuple[TagOutcome, ...]
    entries: tuple[EntryResult, ...]
    wall_seconds: float
    implementation: str
    history_file: str

    @property
    def score(self) -> Score:
        """The run's historical mutation score."""
        return score(self.entries)


def _side(side: SideResult | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {
        "neededTag": side.needed,
        "tag": side.tag,
        "report": side.report,
        "error": side.error,
        "layouts": {
            name: {"outcome": o.outcome, "message": o.message}
            for name, o in side.layouts.items()
        },
    }


def _killer(killer: KillerResult | None) -> dict[str, Any] | None:
    if killer is None:
        return None
    return {
        "name": killer.name,
        "layouts": list(killer.layouts),
        "verdict": killer.verdict,
        "reason": killer.reason,
        "evidence": killer.evidence,
        BEFORE: _side(killer.before),
        AFTER: _side(killer.after),
    }


def _tag(t: TagOutcome) -> dict[str, Any]:
    found: dict[str, Any] = {
        "tag": t.run.tag,
        "commit": t.run.commit,
        "build": t.run.build.build,
        "instancePrefix": t.run.build.instance_prefix,
        "cached": t.run.cached,
        "entries": list(t.run.entries),
        "keywords": t.run.keywords,
        "report": t.report,
        "error": t.error,
    }
    if t.run.experiments:
        found |= {
            "experiments": list(t.run.experiments),
            "chaosKeywords": t.run.chaos_keywords,
            "chaosReport": t.chaos_report,
            "chaosError": t.chaos_error,
        }
    return found


def document(outcome: Outcome, measured_on: provenance.Provenance) -> dict[str, Any]:
    """The HistoryResult of a finished run (validated); `measured_on`: this code."""
    plan = outcome.plan
    total = outcome.score
    doc: dict[str, Any] = {
        "apiVersion": historical.API_VERSION,
        "kind": historical.KIND,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "wallSeconds": round(outcome.wall_seconds, 1),
        "suite": {"version": documents.SUITE_VERSION, "commit": measured_on.commit},
        "measuredOn": measured_on.to_json(),
        "implementation": outcome.implementation,
        "source": plan.source,
        "history": {
            "file": outcome.history_file,
            "repository": plan.history.repository,
            "fromTag": plan.history.from_tag,
            "toTag": plan.history.to_tag,
        },
        "layout": plan.layout,
        "selected": list(plan.selection.chosen) if plan.selection.chosen else None,
        "substituteBuilt": plan.substitute_built,
        "score": {
            "caught": total.caught,
            "inScope": total.in_scope,
            "score": total.value,
            "counting": COUNTING,
        },
        "counts": counts(outcome.entries),
        "tags": [_tag(t) for t in outcome.tags],
        "substitutions": [
            {
                "entry": s.entry,
                "side": s.side,
                "needed": s.needed,
                "used": s.used,
                "distance": s.distance,
                "reason": s.reason,
            }
            for s in plan.substitutions
        ],
        "entries": [
            {
                "id": e.fix.id,
                "clause": e.fix.clause,
                "scenario": e.fix.scenario,
                "inScope": e.fix.in_scope,
                "observable": e.fix.observable,
                "verdict": e.verdict,
                "reason": e.reason,
                "evidence": e.evidence,
                BEFORE: _side(e.before),
                AFTER: _side(e.after),
                **(
                    {}
                    if e.fix.experiment is None
                    else {"experiment": _killer(e.experiment)}
                ),
            }
            for e in outcome.entries
        ],
    }
    historical.validate(doc)
    return doc


def write(doc: dict[str, Any], path: Path) -> Path:
    """Write the HistoryResult YAML; return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=100))
    return path
