"""`--substitute-built`: stand in an already built tag for one that would need a build.

A build of upstream Argo takes 10 to 20 minutes on a small machine, and what a
fix's side needs is only a tag on the right side of the fix. For "after", a
tag that has one of the fix's commits (its own or a backport). For "before",
a tag that still has the bug: lacking every one of the fix's commits is not
enough, since a tag older than the bug (or on a line the bug never reached)
lacks them too and would pass the scenario for the wrong reason. So a before
stand-in must be the fix's last tag with the bug or descend from it, and still
lack every commit of the fix. Backport lines' tags are not before stand-ins:
refusing one costs a build, accepting a wrong one costs a wrong verdict.

Git ancestry says all of that exactly, so a needed tag that is not built may be
replaced by a built one on the same side; the closest (fewest commits between
the two) is preferred, then the name. A need whose own tag is built is never
replaced, and a need with no built tag on its side keeps its tag (the run
builds it). Every replacement is recorded with its reason, so the result says
which tag really ran; `refusal` says why a built tag cannot stand in.
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
    """The git questions a substitution asks (`ancestry.GitRepository`)."""

    def commit(self, ref: str) -> str:
        """The full commit a ref names; DataError when none."""
        ...

    def is_ancestor(self, commit: str, ref: str) -> bool:
        """Whether `commit` is in `ref`'s history."""
        ...

    def distance(self, a: str, b: str) -> int:
        """Commits in one of the two refs' histories but not the other's."""
        ...


def fixed_by(fix: Fix, tag: str, repo: Ancestry) -> list[str]:
    """The commits of the fix (its own, then backports') that `tag` contains."""
    return [commit for commit in fix.commits if repo.is_ancestor(commit, tag)]


def refusal(fix: Fix, side: str, tag: str, repo: Ancestry) -> str | None:
    """Why `tag` cannot stand in on `side` of the fix; None when it can.

    After: it must contain one of the fix's commits. Before: it must be the
    fix's last tag with the bug or descend from it, and contain none of them.
    """
    has = fixed_by(fix, tag, repo)
    if side != BEFORE:
        if has:
            return None
        return f"{tag} contains none of the fix's commits ({_short(fix.commits)})"
    if has:
        return f"{tag} contains the fix ({_short(has)}): it no longer has the bug"
    last = fix.last_tag_with_bug
    if tag != last and not repo.is_ancestor(repo.commit(last), tag):
        return (
            f"{tag} does not descend from {last} (the last tag with the bug): "
            f"it is older or on another line, so the bug may not be in it"
        )
    return None


def on_side(fix: Fix, side: str, tag: str, repo: Ancestry) -> bool:
    """Whether `tag` may stand in on `side` of the fix (`refusal` says why not)."""
    return refusal(fix, side, tag, repo) is None


def _short(commits: Sequence[str]) -> str:
    return ", ".join(c[:12] for c in commits)


def _reason(fix: Fix, side: str, tag: str, repo: Ancestry) -> str:
    if side == BEFORE:
        return (
            f"{tag} is built, descends from {fix.last_tag_with_bug} (the last tag "
            f"with the bug) and contains none of the fix's commits "
            f"({_short(fix.commits)})"
        )
    return f"{tag} is built and contains the fix ({_short(fixed_by(fix, tag, repo))})"


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
