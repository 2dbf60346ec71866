"""A qualification: both builds run, diffed, every difference rerun, the diff written.

Order of work, for any `Runner` (the real one runs the suite; tests pass a fake):

1. the whole suite against OLD, then NEW (`<out>/old`, `<out>/new`);
2. the two reports diffed (`conformance.diffing.comparing`);
3. for round 1..N, OLD then NEW, one run per layout selecting the differing
   items of that layout (`<out>/rerun-<round>-<side>-<layout>`), so each
   version's verdicts are interleaved in time rather than bunched;
4. every rerun report read by exact test id into rerun records, folded into the
   diff (`conformance.diffing.reruns`): confirmed or flaky, with the evidence;
5. the diff written as `<out>/diff.yaml` and `<out>/diff.txt`.

Nothing is rerun when nothing differs. A rerun report lacking an item records
it as `absent` (never as a verdict).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from conformance.diffing import comparing
from conformance.diffing import reading
from conformance.diffing import rendering
from conformance.diffing import reruns
from conformance.diffing.comparing import ReportDiff
from conformance.diffing.comparing import RerunRecord
from conformance.qualifying import builds
from conformance.qualifying.builds import Build
from conformance.qualifying.running import Run
from conformance.qualifying.running import Runner

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """What to qualify and where its files go."""

    old: Build
    new: Build
    out_dir: Path
    layout: str = "both"
    rounds: int = 2
    """How many times each differing item is rerun against each version."""
    timing_ratio: float = 1.5
    min_seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.rounds < 0:
            raise ValueError(f"rounds must be 0 or more, got {self.rounds}")


@dataclass(frozen=True)
class Outcome:
    """A finished qualification: the diff and the files written."""

    diff: ReportDiff
    yaml_path: Path
    table_path: Path


def _outcomes(report: Path) -> dict[tuple[str, str], str]:
    return {
        key: item.outcome
        for key, item in comparing.items_of(reading.read(report)).items()
    }


def rerun_records(
    plan: Plan, diff: ReportDiff, runner: Runner
) -> dict[tuple[str, str], list[RerunRecord]]:
    """Rerun every differing item `plan.rounds` times against each build."""
    keys = [c.new.key for c in diff.items]
    records: dict[tuple[str, str], list[RerunRecord]] = {key: [] for key in keys}
    selections = builds.selections(keys)
    for round_ in range(1, plan.rounds + 1):
        for build in (plan.old, plan.new):
            for layout, keywords in selections.items():
                run = Run(
                    build=build,
                    layout=layout,
                    reports_dir=plan.out_dir / f"rerun-{round_}-{build.side}-{layout}",
                    keywords=keywords,
                )
                logger.info(
                    "Rerun %d of %d: %s (%s), %s: -k %s.",
                    round_,
                    plan.rounds,
                    build.side,
                    build.ref,
                    layout,
                    keywords,
                )
                seen = _outcomes(runner(run))
                for key in keys:
                    if key[1] == layout:
                        records[key].append(
                            RerunRecord(
                                side=build.side,
                                round=round_,
                                outcome=seen.get(key, comparing.ABSENT),
                                report=str(run.report),
                            )
                        )
    return records


def qualify(plan: Plan, runner: Runner) -> Outcome:
    """Run, diff, rerun and write; the returned diff says whether it regressed."""
    reports = {}
    for build in (plan.old, plan.new):
        logger.info("Running the suite against %s (%s).", build.side, build.ref)
        reports[build.side] = runner(
            Run(build=build, layout=plan.layout, reports_dir=plan.out_dir / build.side)
        )
    diff = comparing.compare(
        reading.read(reports["old"]),
        reading.read(reports["new"]),
        old_path=str(reports["old"]),
        new_path=str(reports["new"]),
        timing_ratio=plan.timing_ratio,
        min_seconds=plan.min_seconds,
    )
    if diff.items and plan.rounds:
        diff = reruns.apply(diff, rerun_records(plan, diff, runner))
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    yaml_path = plan.out_dir / "diff.yaml"
    table_path = plan.out_dir / "diff.txt"
    yaml_path.write_text(rendering.yaml_text(diff), encoding="utf-8")
    table_path.write_text(rendering.table(diff), encoding="utf-8")
    return Outcome(diff=diff, yaml_path=yaml_path, table_path=table_path)
