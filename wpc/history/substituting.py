"""`--substitute-built`: stand in an already built tag for one that would need a build.

A build of upstream Argo takes 10 to 20 minutes on a small machine, and what a
fix's side needs is only a tag on the right side of the fix: for "before" a
tag that has neither the fix's commit nor any of its backports (none is an
ancestor), for "after" a tag that has one of them. Git ancestry says that
exactly, so a needed tag that is not built may be replaced by a built one on
the same side; the closest (fewest commits between the two) is preferred, then
the name. A need whose own tag is built is never replaced, and a need with no
built tag on its side keeps its tag (the run builds it). Every replacement is
recorded with its reason, so the result says which tag really ran.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from typing import Protocol

from conformance.spec.history import Fix
from wpc.history.plans import BEFORE
from wpc.history.plans import Need
from wpc.history.plans import Substitution


class Ancestry(Protocol):
    """The two git questions a substitution asks (`ancestry.GitRepository`)."""

    def is_ancestor(self, commit: str, ref: str) -> bool:
        """Whether `commit` is in `ref`'s history."""
        ...

    def distance(self, a: str, b: str) -> int:
        """Commits in one of the two refs' histories but not the other's."""
        ...


def fixed_by(fix: Fix, tag: str, repo: Ancestry) -> list[str]:
    """The commits of the fix (its own, then backports') that `tag` contains."""
    return [commit for commit in fix.commits if repo.is_ancestor(commit, tag)]


def on_side(fix: Fix, side: str, tag: str, repo: Ancestry) -> bool:
    """Whether `tag` is on `side` of the fix: before lacks every commit, after has one."""
    has = bool(fixed_by(fix, tag, repo))
    return not has if side == BEFORE else has


def _reason(fix: Fix, side: str, tag: str, repo: Ancestry) -> str:
    if side == BEFORE:
        short = ", ".join(c[:12] for c in fix.commits)
        return f"{tag} is built and contains none of the fix's commits ({short})"
    return (
        f"{tag} is built and contains the fix "
        f"({', '.join(c[:12] for c in fixed_by(fix, tag, repo))})"
    )


def choose(
    fixes: Sequence[Fix],
    needs: Iterable[Need],
    built: Sequence[str],
    repo: Ancestry,
) -> tuple[dict[Need, str], tuple[Substitution, ...]]:
    """Each need's tag (its own, or the closest built one on its side) and the swaps."""
    by_id = {fix.id: fix for fix in fixes}
    used: dict[Need, str] = {}
    swaps: list[Substitution] = []
    for need in needs:
        if need.tag in built:
            used[need] = need.tag
            continue
        fix = by_id[need.entry]
        candidates = [t for t in built if on_side(fix, need.side, t, repo)]
        if not candidates:
            used[need] = need.tag
            continue
        ranked = sorted((repo.distance(need.tag, t), t) for t in candidates)
        distance, tag = ranked[0]
        used[need] = tag
        swaps.append(
            Substitution(
                entry=need.entry,
                side=need.side,
                needed=need.tag,
                used=tag,
                distance=distance,
                reason=_reason(fix, need.side, tag, repo),
            )
        )
    return used, tuple(swaps)
