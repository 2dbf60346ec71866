"""A qualification: both builds run, diffed, every difference rerun, the diff written.

Order of work, for any `Runner` (the real one runs the suite; tests pass a fake)
and, with `Plan.chaos`, any `ChaosRunner` (the real one runs the chaos suite):

1. the whole suite (or one shard of it, `Plan.shard`) against OLD and NEW
   (`<out>/old`, `<out>/new`): side by side on the one cluster when the runner can
   (`running.SideBySide`, `Plan.side_by_side`), each run's output in its
   `console.log`, else OLD then NEW; with chaos, then the whole chaos suite
   against OLD, then NEW (`<out>/chaos-old`, `<out>/chaos-new`: never side by
   side, its faults restart node components that the other run would feel);
2. the two reports diffed (`wpc.diff.comparing`), and the two ChaosReports
   (`wpc.diff.chaoscases`: a case is an experiment in a layout; one not
   applicable on a side is listed, never a change);
3. for round 1..N, OLD and NEW (side by side as in 1.), one run selecting the
   differing items (`<out>/rerun-<round>-<side>-<layout>`; layout `both` when items
   of both layouts differ, each selected with its layout's id: one suite start-up per
   side and round, `builds.selections`), then, OLD then NEW, one chaos
   run per layout selecting the differing chaos cases
   (`<out>/chaos-rerun-<round>-<side>-<layout>`), so each version's verdicts
   are interleaved in time rather than bunched: one loop (`rerun_records`)
   for both, each kind of case saying how it is selected, run and read
   (`Rerunnable`);
4. every rerun report read by exact identity into rerun records, folded into
   the diff (`wpc.diff.reruns`): confirmed or flaky, with the evidence;
5. the explanations file, if any (read before anything runs, so a bad one
   costs no hour of runs), applied (`wpc.diff.explaining`, chaos cases by
   `experiment`): an explained regression is listed with its reason and not
   counted;
6. the diff written as `<out>/diff.yaml` and `<out>/diff.txt`.

Nothing is rerun when nothing differs. A rerun report lacking an item records
it as `absent` (never as a verdict).

`rediff` redoes steps 2, 4, 5 and 6 from a finished qualification's directory
without running anything: the rerun records are rebuilt from the
`rerun-<round>-<side>-<layout>` (and `chaos-rerun-...`) directories, and each
side's ref from the `ref` profile variable its report's reproduce line records;
the chaos cases are compared when `chaos-old/` and `chaos-new/` hold reports.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import DataError
from conformance.harness.instances import layouts
from wpc.diff import chaoscases
from wpc.diff import comparing
from wpc.diff import explaining
from wpc.diff import reading
from wpc.diff import rendering
from wpc.diff import reruns
from wpc.diff.comparing import ChaosDiff
from wpc.diff.comparing import Explanation
from wpc.diff.comparing import ItemChange
from wpc.diff.comparing import ReportDiff
from wpc.diff.comparing import RerunRecord
from wpc.qualify import builds
from wpc.qualify import chaos_running
from wpc.qualify.builds import Build
from wpc.qualify.chaos_running import ChaosRun
from wpc.qualify.chaos_running import ChaosRunner
from wpc.qualify.running import REPORT_NAME
from wpc.qualify.running import Run
from wpc.qualify.running import Runner
from wpc.qualify.running import SideBySide

logger = logging.getLogger(__name__)

DEFAULT_EXPLAINED = Path(__file__).parent / "explained.yaml"
"""The explanations `qualify` applies unless told otherwise (schema beside it)."""
SUITE_RERUNS = "rerun"
"""The prefix of the suite's rerun directories."""
CHAOS_RERUNS = "chaos-rerun"
"""The prefix of the chaos suite's rerun directories."""


def rerun_pattern(prefix: str) -> re.Pattern[str]:
    """A rerun's reports directory name, as `rerun_dir` makes it with `prefix`."""
    return re.compile(
        rf"{re.escape(prefix)}-(?P<round>[1-9][0-9]*)-(?P<side>old|new)-(?P<layout>[a-z]+)"
    )


def rerun_dir(
    out_dir: Path, round_: int, side: str, layout: str, prefix: str = SUITE_RERUNS
) -> Path:
    """Where one rerun of one side and layout writes its reports."""
    return out_dir / f"{prefix}-{round_}-{side}-{layout}"


def chaos_dir(out_dir: Path, side: str) -> Path:
    """Where the whole chaos suite's run of one side writes its reports."""
    return out_dir / f"chaos-{side}"


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
    chaos: bool = False
    """Whether the chaos suite runs on both builds too, its cases diffed and rerun."""
    side_by_side: bool = True
    """Run the suite against both builds at once (and each round's reruns), where the
    runner can: each item's verdict is a wait on the cluster far more than CPU work,
    and both sides then see the same load. False: OLD, then NEW."""

    def __post_init__(self) -> None:
        if self.rounds < 0:
            raise ValueError(f"rounds must be 0 or more, got {self.rounds}")


@dataclass(frozen=True)
class Outcome:
    """A finished qualification: the diff and the files written."""

    diff: ReportDiff
    yaml_path: Path
    table_path: Path


Key = tuple[str, str]
"""A case's identity in a layout: (test id or experiment, layout)."""
Records = dict[Key, list[RerunRecord]]


def _outcomes(report: Path) -> dict[Key, str]:
    return {
        key: item.outcome
        for key, item in comparing.items_of(reading.read(report)).items()
    }


def _chaos_outcomes(report: Path) -> dict[Key, str]:
    return chaoscases.outcomes(chaoscases.read(report))


@dataclass(frozen=True)
class Rerunnable:
    """One kind of differing case, and how the rerun loop selects, runs and reads it.

    The suite's items and the chaos suite's cases are rerun by the same loop
    (`rerun_records`); only these differ.
    """

    prefix: str
    """The rerun directories' prefix (`rerun_dir`)."""
    changes: Sequence[ItemChange]
    selections: Mapping[str, str]
    """Per layout, the `-k` expression selecting that layout's differing cases."""
    run: Callable[[Build, str, Path, str], Path]
    """(build, layout, reports directory, `-k`) -> the rerun's report."""
    together: Callable[[Sequence[RerunJob]], list[Path]] | None
    """Runs several reruns at once (their reports, in order), or None: one at a time."""
    read: Callable[[Path], Mapping[Key, str]]
    """A report -> each case's outcome, by exact identity."""
    fold: Callable[[ReportDiff, Records], ReportDiff]
    """The diff with this kind's rerun records folded in (`reruns`)."""


RerunJob = tuple[Build, str, Path, str]
"""One rerun: (build, layout, reports directory, `-k`)."""


def _suite_run(job: RerunJob) -> Run:
    build, layout, where, keywords = job
    return Run(build=build, layout=layout, reports_dir=where, keywords=keywords)


def suite_cases(
    diff: ReportDiff, runner: Runner, *, side_by_side: bool = False
) -> Rerunnable:
    """The differing items of the suite, rerun with `runner` (side by side if it can)."""
    together = None
    if side_by_side and isinstance(runner, SideBySide):
        batch = runner

        def together(jobs: Sequence[RerunJob]) -> list[Path]:
            return batch.together([_suite_run(job) for job in jobs])

    return Rerunnable(
        prefix=SUITE_RERUNS,
        changes=diff.items,
        # By node ID: `-k` matches function names, which the identity may omit.
        selections=builds.selections((c.new.nodeid, c.new.layout) for c in diff.items),
        run=lambda build, layout, where, keywords: runner(
            Run(build=build, layout=layout, reports_dir=where, keywords=keywords)
        ),
        together=together,
        read=_outcomes,
        fold=reruns.apply,
    )


def chaos_cases(chaos: ChaosDiff, runner: ChaosRunner) -> Rerunnable:
    """The differing chaos cases, rerun with `runner`."""
    names: dict[str, set[str]] = {}
    for change in chaos.cases:
        names.setdefault(change.new.layout, set()).add(change.new.short_name)
    return Rerunnable(
        prefix=CHAOS_RERUNS,
        changes=chaos.cases,
        selections={
            layout: chaos_running.selection(found)
            for layout, found in sorted(names.items())
        },
        run=lambda build, layout, where, keywords: runner(
            ChaosRun(build=build, layout=layout, reports_dir=where, keywords=keywords)
        ),
        together=None,  # node faults: one chaos run at a time on a cluster
        read=_chaos_outcomes,
        fold=_fold_chaos,
    )


def _fold_chaos(diff: ReportDiff, records: Records) -> ReportDiff:
    """The diff with each chaos case's rerun status (confirmed or flaky)."""
    if diff.chaos is None:
        raise ValueError("chaos rerun records for a diff without chaos cases")
    chaos = dataclasses.replace(
        diff.chaos, cases=reruns.classify_all(diff.chaos.cases, records)
    )
    return dataclasses.replace(diff, chaos=chaos)


def _record(
    records: Records,
    changes: Iterable[ItemChange],
    seen: Mapping[Key, str],
    where: tuple[str, str, int],
    report: Path,
) -> None:
    """A rerun's outcomes (`seen`) as one record per differing case of its layout.

    `where` is the rerun's (layout, side, round); a rerun of both layouts
    records the cases of each.
    """
    layout, side, round_ = where
    for change in changes:
        key = change.new.key
        if layout in (key[1], layouts.BOTH):
            records[key].append(
                RerunRecord(
                    side=side,
                    round=round_,
                    outcome=seen.get(key, comparing.ABSENT),
                    report=str(report),
                )
            )


def rerun_records(plan: Plan, kinds: Sequence[Rerunnable]) -> list[Records]:
    """Rerun every differing case of each kind `plan.rounds` times against each build.

    Per round, OLD then NEW, each kind in turn, one run per selection (the
    suite: one for both layouts; the chaos suite: one per layout); the reruns of
    a kind that can run together (`Rerunnable.together`) run at once before the
    others, and every report is recorded in that order regardless, so the records
    of each kind, in the order of `kinds`, do not depend on how they ran.
    """
    found: list[Records] = [{c.new.key: [] for c in kind.changes} for kind in kinds]
    for round_ in range(1, plan.rounds + 1):
        jobs = _round_jobs(plan, round_, kinds)
        reports: dict[int, Path] = {}
        for kind_index, kind in enumerate(kinds):
            batch = [n for n, (k, _) in enumerate(jobs) if k == kind_index]
            if kind.together is not None and len(batch) > 1:
                for n in batch:
                    _log_rerun(plan, round_, kind, jobs[n][1], "side by side")
                ran = kind.together([jobs[n][1] for n in batch])
                reports.update(zip(batch, ran, strict=True))
        for n, (kind_index, job) in enumerate(jobs):
            kind = kinds[kind_index]
            if n not in reports:
                _log_rerun(plan, round_, kind, job, "")
                reports[n] = kind.run(*job)
            build, layout, _, _ = job
            _record(
                found[kind_index],
                kind.changes,
                kind.read(reports[n]),
                (layout, build.side, round_),
                reports[n],
            )
    return found


def _round_jobs(
    plan: Plan, round_: int, kinds: Sequence[Rerunnable]
) -> list[tuple[int, RerunJob]]:
    """A round's reruns, each with its kind's index in `kinds`, in recording order.

    OLD then NEW, each kind in turn, each of its selections.
    """
    return [
        (index, (build, layout, where, keywords))
        for build in (plan.old, plan.new)
        for index, kind in enumerate(kinds)
        for layout, keywords in kind.selections.items()
        for where in [rerun_dir(plan.out_dir, round_, build.side, layout, kind.prefix)]
    ]


def _log_rerun(
    plan: Plan, round_: int, kind: Rerunnable, job: RerunJob, how: str
) -> None:
    build, layout, _, keywords = job
    logger.info(
        "Rerun %d of %d (%s%s): %s (%s), %s: -k %s.",
        round_,
        plan.rounds,
        kind.prefix,
        f", {how}" if how else "",
        build.side,
        build.ref,
        layout,
        keywords,
    )


def _diff(old: Path, new: Path, timing_ratio: float, min_seconds: float) -> ReportDiff:
    return comparing.compare(
        reading.read(old),
        reading.read(new),
        old_path=str(old),
        new_path=str(new),
        timing_ratio=timing_ratio,
        min_seconds=min_seconds,
    )


def _chaos_diff(old: Path, new: Path) -> ChaosDiff:
    return chaoscases.compare(
        chaoscases.read(old),
        chaoscases.read(new),
        old_path=str(old),
        new_path=str(new),
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


def _with_reruns(
    diff: ReportDiff, kinds: Sequence[Rerunnable], found: Sequence[Records]
) -> ReportDiff:
    """The diff with each kind's rerun records folded in (`reruns`)."""
    for kind, records in zip(kinds, found, strict=True):
        diff = kind.fold(diff, records)
    return diff


def qualify(
    plan: Plan, runner: Runner, chaos_runner: ChaosRunner | None = None
) -> Outcome:
    """Run, diff, rerun, explain and write; the returned diff says whether it regressed."""
    if plan.chaos and chaos_runner is None:
        raise ValueError("a qualification with chaos needs a chaos runner")
    explained = _load(plan.explained)
    runs = [
        Run(
            build=build,
            layout=plan.layout,
            reports_dir=plan.out_dir / build.side,
            shard=plan.shard,
        )
        for build in (plan.old, plan.new)
    ]
    if plan.side_by_side and isinstance(runner, SideBySide):
        logger.info(
            "Running the suite against %s side by side.",
            " and ".join(f"{run.build.side} ({run.build.ref})" for run in runs),
        )
        reports = dict(
            zip((run.build.side for run in runs), runner.together(runs), strict=True)
        )
    else:
        reports = {}
        for run in runs:
            logger.info(
                "Running the suite against %s (%s).", run.build.side, run.build.ref
            )
            reports[run.build.side] = runner(run)
    chaos_reports = {}
    if chaos_runner is not None and plan.chaos:
        for build in (plan.old, plan.new):
            logger.info(
                "Running the chaos suite against %s (%s).", build.side, build.ref
            )
            chaos_reports[build.side] = chaos_runner(
                ChaosRun(
                    build=build,
                    layout=plan.layout,
                    reports_dir=chaos_dir(plan.out_dir, build.side),
                )
            )
    diff = _diff(reports["old"], reports["new"], plan.timing_ratio, plan.min_seconds)
    kinds = (
        [suite_cases(diff, runner, side_by_side=plan.side_by_side)]
        if diff.items
        else []
    )
    if chaos_reports:
        chaos = _chaos_diff(chaos_reports["old"], chaos_reports["new"])
        diff = dataclasses.replace(diff, chaos=chaos)
        if chaos.cases and chaos_runner is not None:
            kinds.append(chaos_cases(chaos, chaos_runner))
    if kinds and plan.rounds:
        diff = _with_reruns(diff, kinds, rerun_records(plan, kinds))
    return _finish(plan.out_dir, diff, explained, ((plan.old.ref,), (plan.new.ref,)))


def _recorded(
    out_dir: Path,
    changes: Iterable[ItemChange],
    prefix: str,
    read: Callable[[Path], Mapping[Key, str]],
    report_in: Callable[[Path], Path | None],
) -> Records:
    """The rerun records of one kind a finished qualification left in `out_dir`."""
    changes = list(changes)
    records: Records = {c.new.key: [] for c in changes}
    pattern = rerun_pattern(prefix)
    found = sorted(
        (int(m["round"]), m["side"], m["layout"], path)
        for path in out_dir.iterdir()
        if path.is_dir() and (m := pattern.fullmatch(path.name))
    )
    for round_, side, layout, path in found:
        report = report_in(path)
        if report is None:
            raise DataError(
                f"{path}: a rerun directory without its report (that rerun left "
                "none; remove the directory to rediff without it)"
            )
        _record(records, changes, read(report), (layout, side, round_), report)
    return {key: seen for key, seen in records.items() if seen}


def _suite_report_in(path: Path) -> Path | None:
    report = path / REPORT_NAME
    return report if report.is_file() else None


def chaos_report_in(path: Path) -> Path | None:
    """The one ChaosReport (`chaos-<profile>.yaml`) in a chaos run's directory, or None.

    DataError when there are several: which one the run wrote cannot be told.
    """
    found = sorted(p for p in path.glob("chaos-*.yaml") if p.is_file())
    if len(found) > 1:
        raise DataError(
            f"{path}: {len(found)} ChaosReports ({', '.join(p.name for p in found)}); "
            "a chaos run's directory holds one"
        )
    return found[0] if found else None


def recorded_rerun_records(out_dir: Path, diff: ReportDiff) -> Records:
    """The suite's rerun records a finished qualification left in `out_dir`, read back.

    Every `rerun-<round>-<side>-<layout>` directory gives each differing item of
    its layout one record, `absent` when its report lacks the item, as
    `rerun_records` made them; a directory without a report is an error.
    """
    return _recorded(out_dir, diff.items, SUITE_RERUNS, _outcomes, _suite_report_in)


def _recorded_ref(report: Path) -> tuple[str, ...]:
    ref = builds.recorded_ref(reading.read(report)["run"]["reproduce"])
    return (ref,) if ref else ()


def _recorded_chaos(out_dir: Path, diff: ReportDiff) -> ReportDiff:
    """The diff with the chaos cases a finished qualification ran, if it ran them."""
    old, new = (chaos_report_in(chaos_dir(out_dir, side)) for side in ("old", "new"))
    if old is None and new is None:
        return diff
    if old is None or new is None:
        raise DataError(
            f"{out_dir}: chaos reports on one side only (chaos-old: {old}, chaos-new: "
            f"{new}); a qualification with chaos leaves one on each"
        )
    chaos = _chaos_diff(old, new)
    records = _recorded(
        out_dir, chaos.cases, CHAOS_RERUNS, _chaos_outcomes, chaos_report_in
    )
    diff = dataclasses.replace(diff, chaos=chaos)
    return _fold_chaos(diff, records) if records else diff


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
    diff = _recorded_chaos(out_dir, diff)
    return _finish(out_dir, diff, entries, (_recorded_ref(old), _recorded_ref(new)))
