"""Which code a measurement was taken on, and whether a later run still is that code.

The negative controls' mutation score is measured once (`make negative-controls`,
minutes of cluster time) and copied into every later ConformanceReport of the
reference implementation. A copied score is only worth something while the suite,
the reference implementation and the spec are the ones it measured, so the
measurement records its `Provenance` (the WPC git commit, whether the tree had
uncommitted changes and a digest of them, and the spec version) and the copier
compares it with its own: any difference makes the score *stale*, with a reason
that names both sides.

Uncommitted changes are compared by digest (of `git diff HEAD` and the untracked
files git does not ignore), so `make test` in a tree with edits, which measures and
then reports without touching a file in between, stays fresh, while an edit made
between the two does not.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plumbing import commands
from plumbing.errors import CommandFailed

REPO = Path(__file__).resolve().parents[3]
"""The checkout the suite runs from (conformance/report/scores/ is three levels down)."""
UNKNOWN = "unknown"
"""The commit outside a git checkout (or without git): never matches anything."""
GIT_TIMEOUT = 30.0
"""Seconds for one git query; a slow disk should not hang the start of a run."""


@dataclass(frozen=True)
class Provenance:
    """The code and spec something was measured on."""

    commit: str
    """`git rev-parse HEAD` of the WPC checkout, or UNKNOWN."""
    dirty: bool
    """Whether the tree had uncommitted changes (tracked or untracked, not ignored)."""
    changes: str | None
    """sha256 of those changes when dirty (None when clean): equal digests, same code."""
    spec_version: str

    def label(self) -> str:
        """`commit 0123456789ab (uncommitted changes 89abcdef) / spec 1.0`, for messages."""
        tree = f"commit {self.commit[:12]}"
        if self.dirty:
            tree += f" (uncommitted changes {(self.changes or UNKNOWN)[:8]})"
        return f"{tree} / spec {self.spec_version}"

    def to_json(self) -> dict[str, Any]:
        """The `measuredOn` object of a NegativeControlsReport."""
        return {
            "commit": self.commit,
            "dirty": self.dirty,
            "changes": self.changes,
            "specVersion": self.spec_version,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Provenance:
        """Read a schema-checked `measuredOn` object back."""
        return cls(
            commit=str(data["commit"]),
            dirty=bool(data["dirty"]),
            changes=data.get("changes"),
            spec_version=str(data["specVersion"]),
        )


def _git(*args: str, cwd: Path) -> str:
    return commands.capture(["git", *args], cwd=cwd, timeout=GIT_TIMEOUT)


def commit(cwd: Path = REPO) -> str:
    """The checkout's HEAD commit, or UNKNOWN outside a checkout."""
    try:
        return _git("rev-parse", "HEAD", cwd=cwd).strip() or UNKNOWN
    except (CommandFailed, UnicodeDecodeError):
        return UNKNOWN


def changes(cwd: Path = REPO) -> str | None:
    """sha256 of the uncommitted changes (None when there are none, or no checkout).

    Tracked changes as `git diff HEAD --binary` shows them, then each untracked,
    not ignored file's name and content: a new module changes what runs as much as
    an edited one.
    """
    try:
        diff = _git("diff", "HEAD", "--binary", cwd=cwd)
        untracked = _git("ls-files", "--others", "--exclude-standard", "-z", cwd=cwd)
    except (CommandFailed, UnicodeDecodeError):
        return None
    names = sorted(name for name in untracked.split("\0") if name)
    if not diff and not names:
        return None
    digest = hashlib.sha256(diff.encode())
    for name in names:
        digest.update(b"\0" + name.encode() + b"\0")
        try:
            digest.update((cwd / name).read_bytes())
        except OSError:  # removed since git listed it: its name still counts
            digest.update(b"<unreadable>")
    return digest.hexdigest()


def current(spec_version: str, cwd: Path = REPO) -> Provenance:
    """The provenance of the checkout at `cwd` (the suite's own by default)."""
    found = changes(cwd)
    return Provenance(
        commit=commit(cwd),
        dirty=found is not None,
        changes=found,
        spec_version=spec_version,
    )


def stale_reason(measured: Provenance | None, now: Provenance) -> str | None:
    """Why a score measured on `measured` does not describe a run on `now` (None: fresh).

    Each difference is one clause naming both sides. An unknown commit on either
    side cannot be shown to match, so it is stale too.
    """
    if measured is None:
        return (
            "the measurement records no commit or spec version (written before "
            f"they were recorded); this run is at {now.label()}"
        )
    reasons = []
    if UNKNOWN in (measured.commit, now.commit):
        reasons.append(
            f"the commit is unknown (measured at {measured.commit[:12]}, "
            f"this run at {now.commit[:12]})"
        )
    elif measured.commit != now.commit:
        reasons.append(
            f"measured at commit {measured.commit[:12]}, "
            f"this run is at commit {now.commit[:12]}"
        )
    if measured.spec_version != now.spec_version:
        reasons.append(
            f"measured against spec {measured.spec_version}, "
            f"this run judges spec {now.spec_version}"
        )
    if not _same_changes(measured, now):
        reasons.append(
            f"the uncommitted changes differ (measured on {_tree(measured)}, "
            f"this run on {_tree(now)})"
        )
    return "; ".join(reasons) or None


def _same_changes(a: Provenance, b: Provenance) -> bool:
    """Both clean, or both dirty with the same known digest."""
    if not a.dirty and not b.dirty:
        return True
    return a.dirty and b.dirty and a.changes is not None and a.changes == b.changes


def _tree(side: Provenance) -> str:
    if not side.dirty:
        return "a clean tree"
    return f"changes {(side.changes or UNKNOWN)[:8]}"
