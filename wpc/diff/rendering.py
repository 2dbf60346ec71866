"""A `ReportDiff` as a YAML document (for tools) and as a table (for people).

Both say the same things in the same order: item changes with their rerun
status, items added and removed, clause changes, the explanations applied (if
a file was given: each change's explanation, and which entries were used,
unused or for other versions), claims, first try versus final verdict,
durations that moved; the document also keeps both reports' identities so a
diff file still says what it compared. A qualification that ran the chaos suite
adds its cases before the explanations: each difference shown as an item
change is (with its reruns and explanation), the counts the verdict uses
(confirmed, flaky, explained, not rerun), and the cases not applicable on a
side listed with their reason, counted nowhere.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import yaml

from wpc.diff.comparing import NOT_RERUN
from wpc.diff.comparing import PHASES_NOT_RECORDED
from wpc.diff.comparing import ChaosDiff
from wpc.diff.comparing import ChaosSide
from wpc.diff.comparing import ClauseChange
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import Item
from wpc.diff.comparing import ItemChange
from wpc.diff.comparing import ReportDiff
from wpc.diff.comparing import Side

API_VERSION = "wpc.dev/v1alpha1"
KIND = "ConformanceReportDiff"
KINDS = {"regression": "regressions", "fix": "fixes", "changed": "otherChanges"}
"""Item and clause change kinds and the document key listing each."""


def _side(side: Side) -> dict[str, Any]:
    return {
        "path": side.path,
        "implementation": side.implementation,
        "version": side.version,
        "date": side.date,
        "suiteCommit": side.suite_commit,
        "specVersion": side.spec_version,
        "result": side.result,
        "attempts": {"firstTry": side.first_try, "final": side.final},
    }


def _item(item: Item) -> dict[str, Any]:
    return {
        "id": item.test_id,
        "nodeid": item.nodeid,
        "layout": item.layout,
        "shortName": item.short_name,
        "outcome": item.outcome,
        "firstOutcome": item.first_outcome,
        "attempts": item.attempts,
        "durationSeconds": item.duration,
    }


def _outcomes(item: Item | None) -> dict[str, Any] | None:
    if item is None:
        return None
    return {
        "outcome": item.outcome,
        "firstOutcome": item.first_outcome,
        "attempts": item.attempts,
    }


def _explained(explanation: Explanation | None) -> dict[str, Any]:
    """The keys an explained change carries (none when no entry matched it).

    The text, and the entry's number: its evidence is listed once, under
    `explanations.used`.
    """
    if explanation is None:
        return {}
    return {"explained": explanation.explanation, "explainedBy": explanation.entry}


def _entry(explanation: Explanation) -> dict[str, Any]:
    found: dict[str, Any] = {
        "entry": explanation.entry,
        "old": explanation.old,
        "new": explanation.new,
        "kind": explanation.kind,
    }
    for key, value in (
        ("clause", explanation.clause),
        ("test", explanation.test),
        ("experiment", explanation.experiment),
    ):
        if value:
            found[key] = value
    if explanation.layouts:
        found["layouts"] = list(explanation.layouts)
    return found


def _explanations(diff: ReportDiff) -> dict[str, Any]:
    """The document's `explanations`: the file, and each entry used, unused or not applicable."""
    if diff.explanations is None:
        return {}
    applied = diff.explanations
    return {
        "explanations": {
            "file": applied.source,
            "explainedItems": sum(1 for c in diff.items if c.explained),
            "explainedClauses": sum(1 for c in diff.clauses if c.explained),
            **(
                {}
                if diff.chaos is None
                else {
                    "explainedChaosCases": sum(
                        1 for c in diff.chaos.cases if c.explained
                    )
                }
            ),
            "used": [
                {
                    **_entry(e),
                    "explanation": e.explanation,
                    "evidence": list(e.evidence),
                    "explains": _explains(diff, e),
                }
                for e in applied.used
            ],
            "unused": [_entry(e) for e in applied.unused],
            "otherVersions": [_entry(e) for e in applied.other_versions],
        }
    }


def _explains(diff: ReportDiff, explanation: Explanation) -> dict[str, int]:
    found = {
        "items": sum(1 for c in diff.items if c.explanation == explanation),
        "clauses": sum(1 for c in diff.clauses if c.explanation == explanation),
    }
    if diff.chaos is not None:
        found["chaosCases"] = sum(
            1 for c in diff.chaos.cases if c.explanation == explanation
        )
    return found


def _clause_change(change: ClauseChange) -> dict[str, Any]:
    return {
        "clause": change.clause,
        "layout": change.layout,
        "old": change.old,
        "new": change.new,
        "tests": list(change.tests),
        "flaky": change.flaky,
        **_explained(change.explanation),
    }


def item_change(change: ItemChange) -> dict[str, Any]:
    """A differing item (or chaos case) with its reruns and explanation."""
    found: dict[str, Any] = {
        "id": change.new.test_id,
        "nodeid": change.new.nodeid,
        "layout": change.new.layout,
        "shortName": change.new.short_name,
        "old": change.old.outcome,
        "new": change.new.outcome,
        "rerun": change.rerun.status,
    }
    if change.rerun.records:
        found["reruns"] = [
            {"side": r.side, "round": r.round, "outcome": r.outcome, "report": r.report}
            for r in change.rerun.records
        ]
    found.update(_explained(change.explanation))
    return found


def rerun_summary(change: ItemChange) -> str:
    """The rerun column: status, then each version's verdicts, first the report's own."""
    if change.rerun.status == NOT_RERUN and not change.rerun.records:
        return NOT_RERUN
    seen = [
        f"{side} {', '.join([item.outcome, *change.rerun.outcomes(side)])}"
        for side, item in (("old", change.old), ("new", change.new))
    ]
    return f"{change.rerun.status} ({'; '.join(seen)})"


def document(diff: ReportDiff) -> dict[str, Any]:
    """The diff as a plain mapping, ready for `yaml.safe_dump`."""
    chaos = {} if diff.chaos is None else {"chaos": chaos_document(diff.chaos)}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "old": _side(diff.old),
        "new": _side(diff.new),
        "regressed": diff.regressed,
        "rerun": diff.rerun,
        "summary": summary(diff),
        "items": {
            **{
                plural: [item_change(c) for c in diff.of_kind(kind)]
                for kind, plural in KINDS.items()
            },
            "added": [_item(i) for i in diff.added],
            "removed": [_item(i) for i in diff.removed],
        },
        "clauses": {
            **{
                plural: [_clause_change(c) for c in diff.clauses_of_kind(kind)]
                for kind, plural in KINDS.items()
            },
            "added": diff.clauses_added,
            "removed": diff.clauses_removed,
        },
        **chaos,
        **_explanations(diff),
        "claims": {
            "featuresClaimed": diff.features_claimed,
            "featuresUnclaimed": diff.features_unclaimed,
            "layoutsClaimed": diff.layouts_claimed,
            "layoutsUnclaimed": diff.layouts_unclaimed,
        },
        "firstTry": [
            {
                "id": c.item.test_id,
                "nodeid": c.item.nodeid,
                "layout": c.item.layout,
                "old": _outcomes(c.old),
                "new": _outcomes(c.new),
            }
            for c in diff.first_try
        ],
        "timings": {
            "ratio": diff.timing_ratio,
            "minSeconds": diff.min_seconds,
            "phases": PHASES_NOT_RECORDED,
            "durations": [
                {
                    "id": t.new.test_id,
                    "nodeid": t.new.nodeid,
                    "layout": t.new.layout,
                    "oldSeconds": t.old.duration,
                    "newSeconds": t.new.duration,
                    "ratio": round(t.ratio, 3),
                }
                for t in diff.timings
            ],
        },
    }


def summary(diff: ReportDiff) -> dict[str, int]:
    """How many changes of each sort; the table's and the document's headline."""
    return {
        "regressions": len(diff.of_kind("regression")),
        "fixes": len(diff.of_kind("fix")),
        "otherChanges": len(diff.of_kind("changed")),
        "itemsAdded": len(diff.added),
        "itemsRemoved": len(diff.removed),
        "clauseRegressions": len(diff.clauses_of_kind("regression")),
        "clauseFixes": len(diff.clauses_of_kind("fix")),
        "clauseOtherChanges": len(diff.clauses_of_kind("changed")),
        "clausesAdded": len(diff.clauses_added),
        "clausesRemoved": len(diff.clauses_removed),
        "featuresClaimed": len(diff.features_claimed),
        "featuresUnclaimed": len(diff.features_unclaimed),
        "firstTryDiffers": len(diff.first_try),
        "timingChanges": len(diff.timings),
        "flakyItems": sum(1 for c in diff.items if c.flaky),
        "flakyClauses": sum(1 for c in diff.clauses if c.flaky),
    }


def yaml_text(diff: ReportDiff) -> str:
    """The document as YAML text."""
    return yaml.safe_dump(document(diff), sort_keys=False, allow_unicode=True)


def table_lines(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns under `header`, two spaces apart (both diffs' tables)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]


def change_label(kind: str, *, flaky: bool, explained: bool) -> str:
    """`regression`, `regression (flaky)`, `regression (explained)` or both."""
    marks = [m for m, on in (("flaky", flaky), ("explained", explained)) if on]
    return f"{kind} ({', '.join(marks)})" if marks else kind


def change_row(change: ItemChange) -> tuple[str, ...]:
    """A change's row: label, layout, name, both outcomes and the rerun column."""
    return (
        change_label(change.kind, flaky=False, explained=change.explained),
        change.new.layout,
        change.new.short_name,
        change.old.outcome,
        change.new.outcome,
        rerun_summary(change),
    )


def explanation_lines(diff: ReportDiff) -> list[str]:
    """Below the change tables: the file, each used entry with its text, and the rest."""
    applied = diff.explanations
    if applied is None:
        return []
    lines = [
        "",
        f"explanations ({applied.source}): {len(applied.used)} used, "
        f"{len(applied.unused)} unused, {len(applied.other_versions)} for other versions; "
        f"{sum(1 for c in diff.items if c.explained)} items and "
        f"{sum(1 for c in diff.clauses if c.explained)} clauses explained",
    ]
    for entry in applied.used:
        explains = _explains(diff, entry)
        chaos = (
            f", {explains['chaosCases']} chaos cases"
            if "chaosCases" in explains
            else ""
        )
        lines.append(
            f"  {entry.describe()}: explains {explains['items']} items, "
            f"{explains['clauses']} clauses{chaos}"
        )
        lines += textwrap.wrap(
            entry.explanation,
            width=100,
            initial_indent="    ",
            subsequent_indent="    ",
        )
        lines += [f"    evidence: {e}" for e in entry.evidence]
    lines += [
        f"  unused: {e.describe()}: matched no change of these versions"
        for e in applied.unused
    ]
    return lines


def _describe(side: Side) -> str:
    return f"{side.implementation} {side.version} ({side.date}, {side.path})"


def table(diff: ReportDiff) -> str:
    """The readable form printed on stdout."""
    counts = summary(diff)
    lines = [
        f"old: {_describe(diff.old)}",
        f"new: {_describe(diff.new)}",
        "",
        f"items: {counts['regressions']} regressions, {counts['fixes']} fixes, "
        f"{counts['otherChanges']} other changes, {counts['itemsAdded']} added, "
        f"{counts['itemsRemoved']} removed"
        + (f"; {counts['flakyItems']} flaky on rerun" if diff.rerun else ""),
    ]
    if diff.items:
        lines += table_lines(
            ("change", "layout", "test", "old", "new", "rerun", "id"),
            [(*change_row(c), c.new.test_id) for c in diff.items],
        )
    for label, items in (("added", diff.added), ("removed", diff.removed)):
        lines += [f"  {label}: {i.test_id} ({i.outcome})" for i in items]
    lines += [
        "",
        f"clauses: {counts['clauseRegressions']} regressions, {counts['clauseFixes']} fixes, "
        f"{counts['clauseOtherChanges']} other changes, {counts['clausesAdded']} added, "
        f"{counts['clausesRemoved']} removed",
    ]
    if diff.clauses:
        lines += table_lines(
            ("change", "clause", "layout", "old", "new", "tests"),
            [
                (
                    change_label(c.kind, flaky=c.flaky, explained=c.explained),
                    c.clause,
                    c.layout,
                    c.old,
                    c.new,
                    ", ".join(c.tests),
                )
                for c in diff.clauses
            ],
        )
    lines += [f"  added: {c}" for c in diff.clauses_added]
    lines += [f"  removed: {c}" for c in diff.clauses_removed]
    if diff.chaos is not None:
        lines += chaos_lines(diff.chaos)
    lines += explanation_lines(diff)
    lines += [
        "",
        "claims: features claimed "
        + (", ".join(diff.features_claimed) or "-")
        + "; unclaimed "
        + (", ".join(diff.features_unclaimed) or "-")
        + "; layouts claimed "
        + (", ".join(diff.layouts_claimed) or "-")
        + "; unclaimed "
        + (", ".join(diff.layouts_unclaimed) or "-"),
        "",
        f"first try versus final verdict: old {_passes(diff.old)}; new {_passes(diff.new)}",
    ]
    if diff.first_try:
        lines += table_lines(
            ("layout", "id", "old first/final", "new first/final"),
            [
                (
                    c.item.layout,
                    c.item.test_id,
                    _first_final(c.old),
                    _first_final(c.new),
                )
                for c in diff.first_try
            ],
        )
    else:
        lines.append("  every item's first try was its final verdict in both reports")
    lines += [
        "",
        f"timings (ratio {diff.timing_ratio}, durations under {diff.min_seconds}s ignored): "
        f"{len(diff.timings)} moved; phases {PHASES_NOT_RECORDED}",
    ]
    if diff.timings:
        lines += table_lines(
            ("layout", "test", "old s", "new s", "ratio", "id"),
            [
                (
                    t.new.layout,
                    t.new.short_name,
                    f"{t.old.duration:.1f}",
                    f"{t.new.duration:.1f}",
                    f"{t.ratio:.2f}",
                    t.new.test_id,
                )
                for t in diff.timings
            ],
        )
    verdict = "REGRESSED" if diff.regressed else "no regression"
    if diff.rerun:
        flaky = sum(1 for c in diff.items if c.flaky)
        why = f"differing items rerun; {flaky} flipped on rerun (flaky) and are not counted"
    else:
        why = "differing items are not rerun offline"
    explained = [c for c in diff.of_kind("regression") if c.explained and not c.flaky]
    explained_clauses = [
        c for c in diff.clauses_of_kind("regression") if c.explained and not c.flaky
    ]
    if explained or explained_clauses:
        why += (
            f"; {len(explained)} item and {len(explained_clauses)} clause regressions "
            "are explained and not counted"
        )
    if diff.chaos is not None:
        why += f"; {chaos_verdict(diff.chaos)}"
    lines += ["", f"verdict: {verdict} ({why})"]
    return "\n".join(lines) + "\n"


def _passes(side: Side) -> str:
    total = sum(side.final.values())
    return (
        f"{side.first_try['passed']} of {total} passed at the first try, "
        f"{side.final['passed']} in the end"
    )


def _first_final(item: Item | None) -> str:
    if item is None:
        return "-"
    return f"{item.first_outcome}/{item.outcome} ({item.attempts} attempts)"


def _chaos_side(side: ChaosSide) -> dict[str, Any]:
    return {
        "path": side.path,
        "implementation": side.implementation,
        "date": side.date,
        "summary": dict(side.summary),
    }


def _chaos_case(change: ItemChange) -> dict[str, Any]:
    found = item_change(change)
    for key in ("id", "nodeid", "shortName"):
        del found[key]
    return {"experiment": change.new.short_name, **found}


def _chaos_only(item: Item) -> dict[str, Any]:
    """A case only one side's ChaosReport has."""
    return {
        "experiment": item.short_name,
        "layout": item.layout,
        "outcome": item.outcome,
    }


def chaos_document(chaos: ChaosDiff) -> dict[str, Any]:
    """The document's `chaos` section."""
    return {
        "old": _chaos_side(chaos.old),
        "new": _chaos_side(chaos.new),
        "regressed": chaos.regressed,
        "summary": chaos.counts(),
        "cases": {
            plural: [_chaos_case(c) for c in chaos.of_kind(kind)]
            for kind, plural in KINDS.items()
        },
        "added": [_chaos_only(i) for i in chaos.added],
        "removed": [_chaos_only(i) for i in chaos.removed],
        "notApplicable": [
            {
                "experiment": n.name,
                "layout": n.layout,
                "old": n.old,
                "new": n.new,
                "reason": n.reason,
            }
            for n in chaos.not_applicable
        ],
    }


def chaos_counted(chaos: ChaosDiff) -> str:
    """`2 differences (...): 1 confirmed, 1 flaky, 0 not rerun; 1 explained; ...`."""
    counts = chaos.counts()
    return (
        f"{counts['differences']} differences ({counts['regressions']} regressions, "
        f"{counts['fixes']} fixes, {counts['otherChanges']} other changes): "
        f"{counts['confirmed']} confirmed, {counts['flaky']} flaky, "
        f"{counts['notRerun']} not rerun; {counts['explained']} explained; "
        f"{counts['notApplicable']} not applicable (listed, not counted)"
    )


def chaos_lines(chaos: ChaosDiff) -> list[str]:
    """The table's chaos section: the differing cases, added, removed, not applicable."""
    found = [
        "",
        f"chaos: old {chaos.old.path}, new {chaos.new.path}",
        f"chaos cases: {chaos_counted(chaos)}",
    ]
    if chaos.cases:
        found += table_lines(
            ("change", "layout", "experiment", "old", "new", "rerun"),
            [change_row(c) for c in chaos.cases],
        )
    for label, items in (("added", chaos.added), ("removed", chaos.removed)):
        found += [
            f"  {label}: {i.short_name} [{i.layout}] ({i.outcome})" for i in items
        ]
    found += [
        f"  not applicable: {n.name} [{n.layout}] (old {n.old or '-'}, new "
        f"{n.new or '-'}): {n.reason}"
        for n in chaos.not_applicable
    ]
    return found


def chaos_verdict(chaos: ChaosDiff) -> str:
    """What the verdict line says of the chaos cases."""
    regressions = chaos.of_kind("regression")
    flaky = sum(1 for c in regressions if c.flaky)
    explained = sum(1 for c in regressions if c.explained and not c.flaky)
    return (
        f"chaos: {len(regressions)} case regressions, {flaky} flaky and {explained} "
        f"explained not counted, {len(chaos.not_applicable)} cases not applicable"
    )
