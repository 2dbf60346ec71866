"""Shard reports in, the one report an unsharded run would have written out.

`wpc run --shard I/N` writes a ConformanceReport of its part of the selection,
with `run.shard` (index, count, selection fingerprint). Every part of a report
is either the same in every shard (suite, implementation, spec, claims, the
coverage ledger, the mutation scores: collection sees the whole suite in each
shard) or a sum over the items (counts, per-layout buckets, layout
comparisons, attempts, leaks, tests), so the merge checks the first kind and
adds up the second. The layouts of a scenario the layout diff compares run in
one shard (`conformance.plugin.selection.arranging`), so each layout comparison
happened whole in one of them.

Refused, with a DataError naming the files (exit 10 in the CLI): a report
that is not a shard's, shards of different code, spec, implementation
(profile, images), selection or shard count, a shard given twice, a shard
missing.

What cannot be the same is recorded instead: the environment is the first
shard's (shards may run on different machines), the run's times span all of
them, and `run.mergedShards` names each shard's session.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.errors import DataError
from conformance.report.items.outcomes import Outcome
from conformance.report.items.records import TestRecord
from conformance.report.rendering import html
from conformance.report.runs import documents
from conformance.report.runs import words

SAME = (
    ("suite", ("suite",), "code (suite version and commit) or spec version"),
    ("implementation", ("implementation",), "implementation or profile"),
    ("selection", ("run", "shard", "selection"), "selection"),
    ("shard count", ("run", "shard", "count"), "number of shards"),
    ("layouts", ("run", "selectedLayouts"), "selected layouts"),
    ("features", ("run", "selectedFeatures"), "selected features"),
    ("coverage ledger", ("coverage",), "coverage ledger (another spec or suite)"),
    ("mutation score", ("mutationScore",), "mutation score"),
    ("historical score", ("historicalMutationScore",), "historical mutation score"),
)
"""What every shard of one run has alike: (label, path in the report, what differs)."""
COUNTS = ("passed", "failed", "skipped", "errors")
BUCKET_LISTS = ("failedTests", "erroredTests", "skippedTests")


@dataclass(frozen=True)
class Shard:
    """One shard's report and the file it came from."""

    path: str
    report: dict[str, Any]

    @property
    def index(self) -> int:
        """The shard's 1-based index."""
        return int(self.report["run"]["shard"]["index"])


def _at(report: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = report
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def refuse_unlike(
    reports: Sequence[tuple[str, dict[str, Any]]],
    parts: Sequence[tuple[str, tuple[str, ...], str]],
    *,
    unlike: str,
) -> None:
    """DataError naming two of `reports` (path, report) that differ in one of `parts`.

    `parts` are (label, path in the report, what differs), as SAME; `unlike` says
    what reports that differ are ("shards of different runs"). `wpc stability`
    refuses runs of different code or selection with the same words.
    """
    if not reports:
        return
    (first_path, first), *others = reports
    for label, path, what in parts:
        for other_path, other in others:
            if _at(other, path) != _at(first, path):
                raise DataError(
                    f"{other_path} and {first_path} are {unlike}: "
                    f"their {what} differ ({label})"
                )


def check(shards: Sequence[Shard]) -> list[Shard]:
    """The shards in index order; DataError when they are not one run's shards."""
    if not shards:
        raise DataError("no shard reports given")
    for shard in shards:
        if _at(shard.report, ("run", "shard")) is None:
            raise DataError(
                f"{shard.path} is not a shard's report (no run.shard): "
                "only reports of `wpc run --shard I/N` can be merged"
            )
        if shard.report.get("interrupted"):
            raise DataError(
                f"{shard.path} is of an interrupted shard "
                f"({shard.report['interrupted']['reason']}): run that shard again"
            )
    refuse_unlike(
        [(shard.path, shard.report) for shard in shards],
        SAME,
        unlike="shards of different runs",
    )
    first = shards[0]
    count = int(first.report["run"]["shard"]["count"])
    by_index: dict[int, Shard] = {}
    for shard in shards:
        if shard.index in by_index:
            raise DataError(
                f"shard {shard.index}/{count} given twice: "
                f"{by_index[shard.index].path} and {shard.path}"
            )
        by_index[shard.index] = shard
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise DataError(f"shard(s) {', '.join(missing)} missing: give all {count}")
    return [by_index[i] for i in sorted(by_index)]


def _sum(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    listed = list(counts)
    return {key: sum(c[key] for c in listed) for key in COUNTS}


def _claimed_skips(skipped: Iterable[dict[str, Any]]) -> int:
    """Skips other than "not claimed", judged by `words.is_claimed` as the tests are."""
    return sum(1 for t in skipped if words.is_claimed({**t, "outcome": "skipped"}))


def _bucket(buckets: list[dict[str, Any]]) -> dict[str, Any]:
    statistics = _sum(b["statistics"] for b in buckets)
    skipped = [t for b in buckets for t in b["skippedTests"]]
    return {
        "result": documents.verdict(statistics, claimed_skips=_claimed_skips(skipped)),
        "statistics": statistics,
        **{name: [t for b in buckets for t in b[name]] for name in BUCKET_LISTS},
    }


def _results(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for report in reports:
        for entry in report["results"]:
            groups.setdefault((entry["layout"], entry["profile"]), []).append(entry)
    return [
        {
            "layout": layout,
            "profile": profile,
            "core": _bucket([e["core"] for e in entries]),
            "extended": _bucket([e["extended"] for e in entries]),
        }
        for (layout, profile), entries in sorted(groups.items())
    ]


def merge(given: Sequence[Shard]) -> dict[str, Any]:
    """The report of the whole selection (validated); DataError as `check` says."""
    shards = check(given)
    reports = [s.report for s in shards]
    first = reports[0]
    final = _sum(r["summary"] for r in reports)
    undeclared = [u for r in reports for u in r["layoutDivergences"]["undeclared"]]
    run = {key: value for key, value in first["run"].items() if key != "shard"}
    run.update(
        {
            "sessionId": "+".join(r["run"]["sessionId"] for r in reports),
            "startedAt": min(r["run"]["startedAt"] for r in reports),
            "finishedAt": max(r["run"]["finishedAt"] for r in reports),
            "mergedShards": {
                "count": len(reports),
                "selection": first["run"]["shard"]["selection"],
                "sessions": [r["run"]["sessionId"] for r in reports],
            },
        }
    )
    merged = {
        "apiVersion": first["apiVersion"],
        "kind": first["kind"],
        "date": max(r["date"] for r in reports),
        "suite": first["suite"],
        "implementation": first["implementation"],
        "environment": first["environment"],
        "cluster": first.get("cluster"),
        "run": run,
        "result": documents.run_result(
            final,
            undeclared=len(undeclared),
            claimed_skips=sum(
                1
                for r in reports
                for t in r["tests"]
                if t["kind"] == "scenario"
                and t["outcome"] == "skipped"
                and words.is_claimed(t)
            ),
        ),
        "summary": {
            **final,
            "divergenceFailures": sum(
                r["summary"]["divergenceFailures"] for r in reports
            ),
        },
        "results": _results(reports),
        "layoutDivergences": {
            "compared": sum(r["layoutDivergences"]["compared"] for r in reports),
            "undeclared": undeclared,
            "declared": [
                d for r in reports for d in r["layoutDivergences"]["declared"]
            ],
        },
        "coverage": first["coverage"],
        "attempts": {
            "firstTry": _sum(r["attempts"]["firstTry"] for r in reports),
            "final": _sum(r["attempts"]["final"] for r in reports),
            "retried": [x for r in reports for x in r["attempts"]["retried"]],
        },
        "mutationScore": first["mutationScore"],
        "historicalMutationScore": first.get("historicalMutationScore"),
        "leaks": [leak for r in reports for leak in r["leaks"]],
        "tests": [test for r in reports for test in r["tests"]],
    }
    merged["verdict"] = words.of_document(merged)
    documents.validate(merged)
    return merged


def read(paths: Sequence[Path]) -> list[Shard]:
    """The shard reports at `paths`, each validated; DataError naming a bad one."""
    return [Shard(path=str(p), report=html.read(p)) for p in paths]


def junit_records(tests: Iterable[dict[str, Any]]) -> list[TestRecord]:
    """A report's items as the JUnit writer takes them (outcomes, attempts, message)."""
    records = []
    for test in tests:
        first, final = Outcome(test["firstOutcome"]), Outcome(test["outcome"])
        tries = [{"call": first}] + [{"call": final}] * (int(test["attempts"]) - 1)
        records.append(
            TestRecord(
                nodeid=test["nodeid"],
                short_name=test["shortName"],
                layout=test["layout"],
                clauses=list(test["clauses"]),
                features=list(test["features"]),
                support=test["support"],
                profiles=[],
                scenario=test["nodeid"],
                kind=test["kind"],
                tries=tries,
                message=test["message"],
                duration=float(test["durationSeconds"]),
            )
        )
    return records
