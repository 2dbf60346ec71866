"""Which fixes run, which tags each needs, and one run per tag: pure.

A fix runs when it is in scope, observable from outside the cluster and names
a scenario or a chaos experiment (its killers); every other fix is listed with
the reason it does not (its verdict is that reason). A running fix needs two
tags: `last_tag_with_bug` (the "before" side, where its killer must fail) and
`first_tag_without_bug` ("after", where it must pass). Tags are grouped so
that each is built and run once, selecting with `-k` the union of the
scenarios of every fix that uses it, whichever side, and, in one chaos run,
the union of their experiments.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass

from conformance.errors import DataError
from conformance.implementations.upstream import sources
from conformance.spec.history import Fix
from conformance.spec.history import History
from wpc.qualify import chaos_running
from wpc.qualify.builds import Build
from wpc.qualify.builds import function_name

BEFORE = "before"
"""The side of `last_tag_with_bug`: the scenario must fail there."""
AFTER = "after"
"""The side of `first_tag_without_bug`: the scenario must pass there."""
SIDES = (BEFORE, AFTER)

CAUGHT = "caught"
MISSED = "missed"
BROKEN_AFTER = "broken-after"
NOT_RUN = "not-run"
NOT_SELECTED = "not-selected"
NO_SCENARIO = "no-scenario"
UNOBSERVABLE = "unobservable"
OUT_OF_SCOPE = "out-of-scope"
VERDICTS = (
    CAUGHT,
    MISSED,
    BROKEN_AFTER,
    NOT_RUN,
    NOT_SELECTED,
    NO_SCENARIO,
    UNOBSERVABLE,
    OUT_OF_SCOPE,
)
"""Every verdict an entry can get; the first four only for a fix that ran."""
BUILD_SIDE = "history"
"""`Build.side` of a tag run: a tag may be one fix's before and another's after."""


@dataclass(frozen=True)
class Excluded:
    """A fix that does not run, and why: its verdict and a sentence."""

    fix: Fix
    verdict: str
    reason: str


@dataclass(frozen=True)
class Selection:
    """The fixes that run, and every other fix with its reason."""

    runnable: tuple[Fix, ...]
    excluded: tuple[Excluded, ...]
    chosen: tuple[str, ...] | None
    """The `--entry` ids given, or None for every runnable fix."""


def exclusion(fix: Fix) -> tuple[str, str] | None:
    """(verdict, reason) of a fix that cannot run; None when it can."""
    if not fix.in_scope:
        return OUT_OF_SCOPE, fix.scope_reason or "out of the pod contract's scope"
    if not fix.observable:
        return UNOBSERVABLE, fix.reason or "not observable from outside the cluster"
    if fix.scenario is None and fix.experiment is None:
        if fix.clause:
            return NO_SCENARIO, f"no scenario names it yet (clause {fix.clause})"
        return NO_SCENARIO, "no scenario names it yet, and its clause is only proposed"
    return None


def select(history: History, ids: Sequence[str] = ()) -> Selection:
    """The fixes to run: all runnable ones, or those `ids` names (DataError if one cannot)."""
    known = {fix.id: fix for fix in history.fixes}
    for wanted in ids:
        if wanted not in known:
            raise DataError(
                f"--entry {wanted}: no such entry in the history "
                f"(its ids: {', '.join(known)})"
            )
        why = exclusion(known[wanted])
        if why is not None:
            raise DataError(
                f"--entry {wanted}: cannot run, {why[0]}: {why[1]} (only in-scope, "
                f"observable entries with a scenario or an experiment run)"
            )
    runnable: list[Fix] = []
    excluded: list[Excluded] = []
    for fix in history.fixes:
        why = exclusion(fix)
        if why is not None:
            excluded.append(Excluded(fix, *why))
        elif ids and fix.id not in ids:
            excluded.append(Excluded(fix, NOT_SELECTED, "not named by --entry"))
        else:
            runnable.append(fix)
    return Selection(
        runnable=tuple(runnable),
        excluded=tuple(excluded),
        chosen=tuple(dict.fromkeys(ids)) if ids else None,
    )


@dataclass(frozen=True)
class Need:
    """One side of one fix, at the tag the history names for it."""

    entry: str
    side: str
    tag: str


def needs(fixes: Sequence[Fix]) -> tuple[Need, ...]:
    """Both sides of every fix, before then after, in the history's order."""
    return tuple(
        Need(
            fix.id,
            side,
            fix.last_tag_with_bug if side == BEFORE else fix.first_tag_without_bug,
        )
        for fix in fixes
        for side in SIDES
    )


@dataclass(frozen=True)
class Substitution:
    """A needed tag replaced by an already built one on the same side of the fix."""

    entry: str
    side: str
    needed: str
    used: str
    distance: int
    """Commits between the two tags (the symmetric difference): how close it is."""
    reason: str


@dataclass(frozen=True)
class TagRun:
    """One tag: built (by the profile, when not cached) and run once for its fixes."""

    tag: str
    commit: str
    build: Build
    cached: bool
    """Whether the tag's binaries were built before this run (nothing to build)."""
    entries: tuple[str, ...]
    scenarios: tuple[str, ...]
    skipped: str | None = None
    """Why this tag is not run (the profile cannot build it, or every fix it serves
    needs another tag that cannot be built), else None."""
    blocked: tuple[str, ...] = ()
    """Fixes it serves whose other side cannot be built: their scenarios are left out."""
    experiments: tuple[str, ...] = ()
    """The chaos experiments of the fixes it serves (one chaos run); () for none."""

    @property
    def keywords(self) -> str:
        """The `-k` expression selecting the scenarios (function names, sorted)."""
        return " or ".join(sorted({function_name(s) for s in self.scenarios}))

    @property
    def chaos_keywords(self) -> str:
        """The chaos suite's `-k` expression selecting the experiments."""
        return chaos_running.selection(set(self.experiments))


def unbuildable(tag: str, module: str) -> str | None:
    """Why the profile cannot build a tag whose go.mod names `module`, else None.

    The builder refuses a tree of another module (`upstream.sources`), and
    upstream's tags up to v4.0.1 name the v3 module path: running such a tag
    would only fail in prepare, minutes later.
    """
    if sources.accepts_module(module):
        return None
    return (
        f"{tag}'s go.mod names module {module or '(no go.mod)'}, which the profile's "
        f"builder refuses"
    )


def group(
    fixes: Sequence[Fix],
    used: Mapping[Need, str],
    *,
    source: str,
    commits: Mapping[str, str],
    cached: Mapping[str, bool],
    modules: Mapping[str, str] | None = None,
) -> tuple[TagRun, ...]:
    """One run per tag used, in order of first use, with its fixes and scenarios.

    `modules` (tag -> the module its go.mod names) marks the tags the profile
    cannot build: they are not run, nor are the scenarios of the fixes that need
    one (they could judge nothing), nor a tag left with no other fix.
    """
    by_id = {fix.id: fix for fix in fixes}
    entries: dict[str, list[str]] = {}
    for need, tag in used.items():
        members = entries.setdefault(tag, [])
        if need.entry not in members:
            members.append(need.entry)
    broken = {
        tag: why
        for tag, module in (modules or {}).items()
        if (why := unbuildable(tag, module)) is not None
    }
    blocked = {need.entry for need, tag in used.items() if tag in broken}
    runs = []
    for tag, ids in entries.items():
        active = [i for i in ids if i not in blocked]
        skipped = broken.get(tag)
        if skipped is None and not active:
            skipped = (
                f"every fix it serves ({', '.join(ids)}) needs a tag the profile "
                f"cannot build on its other side"
            )
        runs.append(
            TagRun(
                tag=tag,
                commit=commits[tag],
                build=Build(BUILD_SIDE, tag, source),
                cached=cached.get(tag, False),
                entries=tuple(ids),
                scenarios=tuple(
                    dict.fromkeys(
                        str(by_id[i].scenario)
                        for i in active
                        if by_id[i].scenario is not None
                    )
                ),
                skipped=skipped,
                blocked=tuple(i for i in ids if i in blocked),
                experiments=tuple(
                    dict.fromkeys(
                        named.name
                        for i in active
                        if (named := by_id[i].experiment) is not None
                    )
                ),
            )
        )
    return tuple(runs)


@dataclass(frozen=True)
class Plan:
    """Everything `history run` will do, known before any build or cluster."""

    history: History
    selection: Selection
    source: str
    layout: str
    substitute_built: bool
    used: Mapping[Need, str]
    """Each need's tag: the history's, or its substitute."""
    substitutions: tuple[Substitution, ...]
    runs: tuple[TagRun, ...]

    def run_of(self, entry: str, side: str) -> TagRun:
        """The tag run that serves one side of one fix."""
        tag = next(
            t for n, t in self.used.items() if (n.entry, n.side) == (entry, side)
        )
        return next(r for r in self.runs if r.tag == tag)

    def needed(self, entry: str, side: str) -> str:
        """The tag the history names for one side of one fix."""
        return next(n.tag for n in self.used if (n.entry, n.side) == (entry, side))
