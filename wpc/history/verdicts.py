"""An entry's verdict from the two reports of its tags: pure.

Per side (before: the tag with the bug, after: the tag with the fix) the
scenario's items are read by exact test id (the `-k` selection may have run
more) and folded per layout: error if any errored, else failed if any failed,
else passed if any passed, else skipped (not claimed in that layout, e.g. an
init-less-only scenario in legacy), or absent when the report lacks it. Only
layouts where it passed or failed count. Then, in this order:

- not-run: a side has no report (its build or run broke), or the scenario
  errored (a harness error proves nothing either way), or it ran in no layout
  on a side, or it never failed before in a layout where it also ran after;
- broken-after: it failed after, in some layout (the fix does not make it pass);
- caught: it failed before in at least one layout where it passed after;
- missed: it passed before in every layout where it ran.

With the fix's clause, a failure counts only when its message names that clause
(`layout_outcomes`); a failure on other clauses alone counts as passed after the fix,
and makes the fix not-run when it is all the tag before it showed.

A chaos experiment named as a fix's killer is judged by the same rules from
the two tags' ChaosReports (`experiment_outcomes`): its entry in each layout
folds to passed, failed, error (also an unverified injection: it proves
nothing either way) or skipped (not applicable: the fault cannot be injected
there). A fix with both a scenario and an experiment is caught when either
catches it (`combine`), each killer's own verdict kept beside.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.report.rendering.verdicttable import evidence_line
from wpc.history.plans import BROKEN_AFTER
from wpc.history.plans import CAUGHT
from wpc.history.plans import MISSED
from wpc.history.plans import NOT_RUN

ABSENT = "absent"
"""A layout whose items the report does not hold."""
OTHER = "failed-elsewhere"
"""Failed, but on clauses other than the fix's (`layout_outcomes`)."""
RAN = frozenset({"passed", "failed", OTHER})


@dataclass(frozen=True)
class LayoutOutcome:
    """The scenario's outcome in one layout of one report, with one line of why."""

    outcome: str
    """passed, failed, error, skipped or absent."""
    message: str


@dataclass(frozen=True)
class SideResult:
    """What one side's run showed of one scenario."""

    side: str
    needed: str
    """The tag the history names for this side."""
    tag: str
    """The tag that ran (the needed one, or its substitute)."""
    report: str | None
    """The run's ConformanceReport, or None when the run left none."""
    error: str | None
    """Why there is no report (the run's error), else None."""
    layouts: Mapping[str, LayoutOutcome]

    def with_outcome(self, *outcomes: str) -> list[str]:
        """The layouts whose outcome is one of `outcomes`, in order."""
        return [name for name, o in self.layouts.items() if o.outcome in outcomes]

    def first_message(self, outcome: str) -> str:
        """The message of the first layout with `outcome` ('' when none)."""
        return next(
            (o.message for o in self.layouts.values() if o.outcome == outcome), ""
        )


CHAOS_OUTCOMES = {
    "passed": "passed",
    "failed": "failed",
    "error": "error",
    "injection-unverified": "error",
    "not-applicable": "skipped",
    "skipped": "skipped",
}
"""A ChaosReport outcome as a scenario's: what each means for judging a fix."""


def _chaos_message(entry: Mapping[str, Any]) -> str:
    """One line of why a chaos case did not pass: its first failure, or its reason."""
    if entry.get("reason"):
        return str(entry["reason"])
    if entry["outcome"] == "injection-unverified":
        return f"injection unverified: {entry['injectionVerified']['evidence']}"
    for check in entry.get("failedChecks") or []:
        return f"{check['activity']}: {evidence_line(str(check['message']))}"
    for violation in entry.get("violations") or []:
        return f"{violation['invariant']}: {evidence_line(str(violation['message']))}"
    for when in ("steadyStateBefore", "steadyStateAfter"):
        if not entry[when]["ok"]:
            return f"{when}: {evidence_line(str(entry[when]['details']))}"
    return ""


def experiment_outcomes(
    document: Mapping[str, Any], name: str, layouts: Sequence[str]
) -> dict[str, LayoutOutcome]:
    """The experiment's outcome per layout in a ChaosReport, as a scenario's."""
    found: dict[str, LayoutOutcome] = {}
    for layout in layouts:
        entries = [
            e
            for e in document["experiments"]
            if (e["name"], e["layout"]) == (name, layout)
        ]
        if not entries:
            found[layout] = LayoutOutcome(
                ABSENT, "not in the ChaosReport (the experiment did not run there)"
            )
            continue
        outcome = CHAOS_OUTCOMES[str(entries[-1]["outcome"])]
        message = "" if outcome == "passed" else _chaos_message(entries[-1])
        found[layout] = LayoutOutcome(outcome, message)
    return found


def _matches(nodeid: str, scenario: str) -> bool:
    base = nodeid.partition("[")[0]
    return base == scenario or base.endswith("/" + scenario)


def _fold(tests: list[dict[str, Any]]) -> LayoutOutcome:
    if not tests:
        return LayoutOutcome(
            ABSENT, "not in the report (the selection did not collect it)"
        )
    for outcome in ("error", "failed", "passed", "skipped"):
        found = [t for t in tests if t["outcome"] == outcome]
        if found:
            message = "" if outcome == "passed" else evidence_line(found[0]["message"])
            return LayoutOutcome(outcome, message)
    return LayoutOutcome(tests[0]["outcome"], evidence_line(tests[0]["message"]))


def layout_outcomes(
    document: Mapping[str, Any],
    scenario: str,
    layouts: Sequence[str],
    clause: str | None = None,
) -> dict[str, LayoutOutcome]:
    """The scenario's outcome per layout in a ConformanceReport, for `clause` if given.

    With the fix's clause, a failure whose message does not name it is OTHER. A
    scenario checks several clauses, and an older tag may miss a later feature
    another of them names: v3.7.0-rc3 and v4.0.0-rc4 both fail PodEnvironment on
    WPC-POD-005 (no ARGO_WORKFLOW_NAME in user containers, added by v4.1.0's
    #15585), while only v3.7.0-rc3 fails WPC-POD-007, the clause of the fix
    between them. After the fix, such a failure counts as the clause holding;
    before it, it proves nothing (the scenario may have stopped before it checked
    the clause: RecoveryWithStatusFinalizer on v3.6.0 stopped at WPC-RECOVERY-005's
    message, before the orphan wait of WPC-FINALIZER-007, until it ran every check
    and named each broken clause). Without a clause the whole outcome counts.
    """
    tests = [t for t in document["tests"] if _matches(t["nodeid"], scenario)]
    found = {}
    for layout in layouts:
        mine = [t for t in tests if t["layout"] == layout]
        outcome = _fold(mine)
        if clause is not None and outcome.outcome == "failed":
            named = [
                t
                for t in mine
                if t["outcome"] == "failed" and clause in str(t.get("message") or "")
            ]
            outcome = (
                LayoutOutcome(
                    "failed", evidence_line(named[0]["message"], naming=clause)
                )
                if named
                else LayoutOutcome(
                    OTHER,
                    f"failed only on clauses other than {clause}: {outcome.message}",
                )
            )
        found[layout] = outcome
    return found


@dataclass(frozen=True)
class Judgement:
    """An entry's verdict, a sentence saying why, and one line of evidence."""

    verdict: str
    reason: str
    evidence: str


def _missing(side: SideResult) -> str | None:
    if side.report is None:
        return f"no report from {side.tag} ({side.side}): {side.error or 'the run left none'}"
    errored = side.with_outcome("error")
    if errored:
        return (
            f"harness error on {side.tag} ({side.side}) in {', '.join(errored)}: "
            f"{side.first_message('error')}"
        )
    if not side.with_outcome(*RAN):
        states = "; ".join(
            f"{name}: {o.outcome}" + (f" ({o.message})" if o.message else "")
            for name, o in side.layouts.items()
        )
        return f"ran in no layout on {side.tag} ({side.side}): {states}"
    return None


def judge(before: SideResult, after: SideResult) -> Judgement:
    """The verdict of one fix from its two sides (see the module's rules)."""
    problems = [p for p in (_missing(before), _missing(after)) if p]
    if problems:
        return Judgement(NOT_RUN, "; ".join(problems), "")
    failed_after = after.with_outcome("failed")
    if failed_after:
        return Judgement(
            BROKEN_AFTER,
            f"failed on {after.tag}, which has the fix, in {', '.join(failed_after)}",
            after.first_message("failed"),
        )
    failed_before = before.with_outcome("failed")
    elsewhere = before.with_outcome(OTHER)
    if not failed_before and elsewhere:
        return Judgement(
            NOT_RUN,
            f"failed on {before.tag}, which has the bug, in {', '.join(elsewhere)} "
            "only on other clauses, so the fix's clause was not judged there",
            before.first_message(OTHER),
        )
    if not failed_before:
        return Judgement(
            MISSED,
            f"passed on {before.tag}, which has the bug, in "
            f"{', '.join(before.with_outcome('passed'))}",
            "",
        )
    seen = [
        name for name in failed_before if name in after.with_outcome("passed", OTHER)
    ]
    if not seen:
        return Judgement(
            NOT_RUN,
            f"failed on {before.tag} only in {', '.join(failed_before)}, where it did "
            f"not run on {after.tag}",
            before.first_message("failed"),
        )
    return Judgement(
        CAUGHT,
        f"failed on {before.tag} and passed on {after.tag} in {', '.join(seen)}",
        before.first_message("failed"),
    )


PRECEDENCE = (CAUGHT, BROKEN_AFTER, MISSED, NOT_RUN)
"""Which killer's verdict a fix takes: caught by either is caught."""


def combine(judgements: Sequence[tuple[str, Judgement]]) -> Judgement:
    """A fix's verdict from its killers' (label, judgement), e.g. scenario and experiment.

    One killer: its judgement. Several: the first by `PRECEDENCE`, its evidence,
    and a reason naming every killer's verdict and reason.
    """
    if len(judgements) == 1:
        return judgements[0][1]
    chosen = min(judgements, key=lambda j: PRECEDENCE.index(j[1].verdict))[1]
    reason = "; ".join(f"{label} {j.verdict}: {j.reason}" for label, j in judgements)
    return Judgement(chosen.verdict, reason, chosen.evidence)
