"""Runs of one selection, item by item: which items flipped, which failed every time.

A flip is an item whose outcome is not the same in every run: a CI gate on
that item would pass or fail by chance. Only runs of the same thing are
compared; anything else is refused with the words `wpc merge` uses for shards
(`merging.refuse_unlike`): another kind of report, an interrupted run, other
code, spec, implementation or profile, other selected layouts, features or
timeout scale, or another set of items (another selection).

The image digests are left out of the implementation compared: one build's
image reads as the digest of the archive a run loaded, or as the image ID a
running container reports when the run loaded nothing, so repeated runs of one
build can name it differently. The profile, the implementation's version (what
its `describe` command printed) and the image references are compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.errors import DataError
from conformance.report import merging
from wpc.stability.reading import CHAOS
from wpc.stability.reading import Observation
from wpc.stability.reading import Run

SUITE_ALIKE = (
    *merging.SAME,
    ("timeout scale", ("run", "timeoutScale"), "timeout scale (--timeout-scale)"),
)
"""What repeated suite runs share: all a shard's run shares, and the timeout scale."""
CHAOS_ALIKE = (
    ("suite", ("suite",), "code (suite version and commit)"),
    ("implementation", ("implementation",), "implementation or profile"),
    ("provider", ("environment", "provider"), "cluster provider"),
)
"""What repeated chaos runs share (a ChaosReport records no more of its selection)."""


@dataclass(frozen=True)
class Item:
    """One item's observation in each run, in run order."""

    id: str
    runs: tuple[Observation, ...]

    @property
    def outcomes(self) -> tuple[str, ...]:
        """The outcome in each run."""
        return tuple(o.outcome for o in self.runs)

    @property
    def flipped(self) -> bool:
        """The outcome is not the same in every run."""
        return len(set(self.outcomes)) > 1

    @property
    def failed_every_run(self) -> bool:
        """Failed (or errored) in each run alike: stable, but not a pass."""
        return all(o.failed for o in self.runs) and not self.flipped


@dataclass(frozen=True)
class Stability:
    """The items of alike runs compared."""

    kind: str
    implementation: str
    reports: tuple[str, ...]
    items: tuple[Item, ...]

    @property
    def flips(self) -> tuple[Item, ...]:
        """The items whose outcome differs between runs."""
        return tuple(i for i in self.items if i.flipped)

    @property
    def failing(self) -> tuple[Item, ...]:
        """The items that failed in every run."""
        return tuple(i for i in self.items if i.failed_every_run)


def _comparable(run: Run) -> dict[str, Any]:
    """The run's document as the likeness check reads it: no image digests."""
    implementation: Mapping[str, Any] = run.document["implementation"]
    images = [
        {key: value for key, value in image.items() if key != "digest"}
        for image in implementation.get("images") or []
    ]
    return {**run.document, "implementation": {**implementation, "images": images}}


def refuse_unlike(runs: Sequence[Run]) -> None:
    """DataError naming the first two runs that are not of one selection."""
    if not runs:
        raise DataError("no reports given")
    first = runs[0]
    for run in runs:
        if run.kind != first.kind:
            raise DataError(
                f"{run.path} is a {run.kind} and {first.path} a {first.kind}: "
                "compare suite runs with suite runs, chaos runs with chaos runs"
            )
        if run.interrupted is not None:
            raise DataError(
                f"{run.path} is of an interrupted run ({run.interrupted}): it covers "
                "only part of the selection; leave it out or run it again"
            )
    merging.refuse_unlike(
        [(run.path, _comparable(run)) for run in runs],
        CHAOS_ALIKE if first.kind == CHAOS else SUITE_ALIKE,
        unlike="not runs of the same code, implementation and selection",
    )
    for run in runs[1:]:
        only_first = sorted(set(first.items) - set(run.items))
        only_run = sorted(set(run.items) - set(first.items))
        if only_first or only_run:
            shown = "; ".join(
                f"only in {path}: {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}"
                for path, ids in ((first.path, only_first), (run.path, only_run))
                if ids
            )
            raise DataError(
                f"{run.path} and {first.path} ran different items (another "
                f"selection): {shown}"
            )


def compare(runs: Sequence[Run]) -> Stability:
    """Every item of `runs` with its outcome in each; DataError for unlike runs."""
    refuse_unlike(runs)
    first = runs[0]
    return Stability(
        kind=first.kind,
        implementation=first.implementation,
        reports=tuple(run.path for run in runs),
        items=tuple(
            Item(id=key, runs=tuple(run.items[key] for run in runs))
            for key in sorted(first.items)
        ),
    )
