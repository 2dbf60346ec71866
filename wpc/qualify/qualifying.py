"""A qualification: both builds run, diffed, every difference rerun, the diff written.

Order of work, for any `Runner` (the real one runs the suite; tests pass a fake):

1. the whole suite (or one shard of it, `Plan.shard`) against OLD, then NEW
   (`<out>/old`, `<out>/new`);
2. the two reports diffed (`wpc.diff.comparing`);
3. for round 1..N, OLD then NEW, one run per layout selecting the differing
   items of that layout (`<out>/rerun-<round>-<side>-<layout>`), so each
   version's verdicts are interleaved in time rather than bunched;
4. every rerun report read by exact test id into rerun records, folded into the
   diff (`wpc.diff.reruns`): confirmed or flaky, with the evidence;
5. the explanations file, if any (read before anything runs, so a bad one
   costs no hour of runs), applied (`wpc.diff.explaining`): an
   explained regression is listed with its reason and not counted;
6. the diff written as `<out>/diff.yaml` and `<out>/diff.txt`.

Nothing is rerun when nothing differs. A rerun report lacking an item records
it as `absent` (never as a verdict).

`rediff` redoes steps 2, 4, 5 and 6 from a finished qualification's directory
without running anything: the rerun records are rebuilt from the
`rerun-<round>-<side>-<layout>` directories, and each side's ref from the
`ref` profile variable its report's reproduce line records.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import DataError
from conformance.harness import layouts
from wpc.diff import comparing
from wpc.diff import explaining
from wpc.diff import reading
from wpc.diff import rendering
from wpc.diff import reruns
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import ReportDiff
from wpc.diff.comparing import RerunRecord
from wpc.qualify import builds
from wpc.qualify.builds import Build
from wpc.qualify.running import REPORT_NAME
from wpc.qualify.running import Run
from wpc.qualify.running import Runner

logger = logging.getLogger(__name__)

DEFAULT_EXPLAINED = Path(__file__).parent / "explained.yaml"
"""The explanations `qualify` applies unless told otherwise (schema beside it)."""
RERUN_DIR = re.compile(
    r"rerun-(?P<round>[1-9][0-9]*)-(?P<side>old|new)-(?P<layout>[a-z]+)"
)
"""A rerun's reports directory, as `rerun_dir` names it."""


def rerun_dir(out_dir: Path, round_: int, side: str, layout: str) -> Path:
    """Where one rerun of one side and layout writes its reports."""
    return out_dir / f"rerun-{round_}-{side}-{layout}"


@dataclass(frozen=True)
class Plan:
    """What to qualify and where its files go."""

    old: Build
    new: Build
    out_dir: Path
    layout: str = layouts.BOTH
    rounds: int = 2
    """How many times each differing item is rerun against each version."""
    timing_ratio: float = 1.5
    min_seconds: float = 1.0
    explained: Path | None = None
    """The explanations file to apply, or None for none."""
    shard: str = ""
    """`I/N`: the whole-suite runs take only that shard (`run --shard`); '' for all.

    Both sides get the same part (the split depends only on the selection and
    the durations file); the reruns select their items by name, unsharded.
    """

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
    # By node ID: `-k` matches function names, which the identity may omit.
    selections = builds.selections((c.new.nodeid, c.new.layout) for c in diff.items)
    for round_ in range(1, plan.rounds + 1):
        for build in (plan.old, plan.new):
            for layout, keywords in selections.items():
                run = Run(
                    build=build,
                    layout=layout,
                    reports_dir=rerun_dir(plan.out_dir, round_, build.side, layout),
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


def _diff(old: Path, new: Path, timing_ratio: float, min_seconds: float) -> ReportDiff:
    return comparing.compare(
        reading.read(old),
        reading.read(new),
        old_path=str(old),
        new_path=str(new),
        timing_ratio=timing_ratio,
        min_seconds=min_seconds,
    )


Explained = tuple[str, tuple[Explanation, ...]]
"""An explanations file's path (as the diff names it) and its entries."""


def _load(explained: Path | None) -> Explained | None:
    if explained is None:
        return None
    entries = explaining.load(explained)
    try:  # the default file is named by its absolute path; say it as people would
        return str(explained.resolve().relative_to(Path.cwd())), entries
    except ValueError:
        return str(explained), entries


def _finish(
    out_dir: Path,
    diff: ReportDiff,
    explained: Explained | None,
    refs: tuple[Sequence[str], Sequence[str]],
) -> Outcome:
    """Apply the explanations (if any), write diff.yaml and diff.txt."""
    if explained is not None:
        source, entries = explained
        diff = explaining.apply(
            diff, entries, source=source, old_refs=refs[0], new_refs=refs[1]
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    yaml_path = out_dir / "diff.yaml"
    table_path = out_dir / "diff.txt"
    yaml_path.write_text(rendering.yaml_text(diff), encoding="utf-8")
    table_path.write_text(rendering.table(diff), encoding="utf-8")
    return Outcome(diff=diff, yaml_path=yaml_path, table_path=table_path)


def qualify(plan: Plan, runner: Runner) -> Outcome:
    """Run, diff, rerun, explain and write; the returned diff says whether it regressed."""
    explained = _load(plan.explained)
    reports = {}
    for build in (plan.old, plan.new):
        logger.info("Running the suite against %s (%s).", build.side, build.ref)
        reports[build.side] = runner(
            Run(
                build=build,
                layout=plan.layout,
                reports_dir=plan.out_dir / build.side,
                shard=plan.shard,
            )
        )
    diff = _diff(reports["old"], reports["new"], plan.timing_ratio, plan.min_seconds)
    if diff.items and plan.rounds:
        diff = reruns.apply(diff, rerun_records(plan, diff, runner))
    return _finish(plan.out_dir, diff, explained, ((plan.old.ref,), (plan.new.ref,)))


def recorded_rerun_records(
    out_dir: Path, diff: ReportDiff
) -> dict[tuple[str, str], list[RerunRecord]]:
    """The rerun records a finished qualification left in `out_dir`, read back.

    Every `rerun-<round>-<side>-<layout>` directory gives each differing item of
    its layout one record, `absent` when its report lacks the item, as
    `rerun_records` made them; a directory without a report is an error.
    """
    keys = [c.new.key for c in diff.items]
    records: dict[tuple[str, str], list[RerunRecord]] = {key: [] for key in keys}
    found = sorted(
        (int(m["round"]), m["side"], m["layout"], path)
        for path in out_dir.iterdir()
        if path.is_dir() and (m := RERUN_DIR.fullmatch(path.name))
    )
    for round_, side, layout, path in found:
        report = path / REPORT_NAME
        if not report.is_file():
            raise DataError(
                f"{path}: a rerun directory without {REPORT_NAME} (that rerun left "
                "no report; remove the directory to rediff without it)"
            )
        seen = _outcomes(report)
        for key in keys:
            if key[1] == layout:
                records[key].append(
                    RerunRecord(
                        side=side,
                        round=round_,
                        outcome=seen.get(key, comparing.ABSENT),
                        report=str(report),
                    )
                )
    return {key: seen_ for key, seen_ in records.items() if seen_}


def _recorded_ref(report: Path) -> tuple[str, ...]:
    ref = builds.recorded_ref(reading.read(report)["run"]["reproduce"])
    return (ref,) if ref else ()


def rediff(
    out_dir: Path,
    *,
    explained: Path | None,
    timing_ratio: float = 1.5,
    min_seconds: float = 1.0,
) -> Outcome:
    """Recompute `out_dir`'s diff.yaml and diff.txt from its reports; nothing runs."""
    entries = _load(explained)
    old, new = (out_dir / side / REPORT_NAME for side in ("old", "new"))
    for report in (old, new):
        if not report.is_file():
            raise DataError(
                f"{out_dir}: not a finished qualification directory: no {report} "
                "(expected old/, new/ and rerun-<round>-<side>-<layout>/ reports)"
            )
    diff = _diff(old, new, timing_ratio, min_seconds)
    records = recorded_rerun_records(out_dir, diff)
    if records:
        diff = reruns.apply(diff, records)
    return _finish(out_dir, diff, entries, (_recorded_ref(old), _recorded_ref(new)))
