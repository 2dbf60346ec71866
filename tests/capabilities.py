"""The skips `make test` accepts: declared capabilities, each with why it is acceptable.

`make test` must run every test the project has on the machine the README names (a
fresh Debian 12, root, Go, Python; see README "Quick start"). A test that skips there
hides a check: a skip is only accepted under `WPC_STRICT_SKIPS=1` (set by the Makefile's
`test` target; see `tests/skipgate.py`) when its reason matches one row below, for a test
whose node id matches the row's `where`. Everything else fails the session.

A row is a promise: the skip reports a result or a missing optional input, never a
check the machine could have run. Keep `where` as narrow as the skip site.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Capability:
    """One accepted kind of skip."""

    name: str
    """Short identifier, unique in DECLARED, named in the gate's summary."""
    reason: re.Pattern[str]
    """Matched (re.search) against the skip's reason as pytest reports it."""
    where: re.Pattern[str]
    """Matched (re.match) against the test's node id (relative to the rootdir)."""
    why: str
    """Why this skip is acceptable inside `make test`."""

    def accepts(self, nodeid: str, reason: str) -> bool:
        """Whether this row declares a skip of `nodeid` for `reason`."""
        return bool(self.where.match(nodeid) and self.reason.search(reason))


class DeclarationError(ValueError):
    """A row of DECLARED is malformed."""


def check(rows: Iterable[Capability]) -> tuple[Capability, ...]:
    """Return rows unchanged, or raise naming the first malformed row and field."""
    seen: set[str] = set()
    out = tuple(rows)
    for row in out:
        if not re.fullmatch(r"[a-z][a-z0-9-]*", row.name):
            raise DeclarationError(f"capability name {row.name!r}: use a-z, 0-9, -")
        if row.name in seen:
            raise DeclarationError(f"capability {row.name!r} is declared twice")
        seen.add(row.name)
        for field in ("reason", "where"):
            pattern = getattr(row, field).pattern
            if not pattern.startswith("^") or re.fullmatch(r"\^?\.?\*?", pattern):
                raise DeclarationError(
                    f"capability {row.name!r}: {field} {pattern!r} must be anchored "
                    "with ^ and say something (no catch-all)"
                )
        if len(row.why.split()) < 5:
            raise DeclarationError(f"capability {row.name!r}: say why in `why`")
    return out


def declared(
    nodeid: str, reason: str, rows: Iterable[Capability] | None = None
) -> Capability | None:
    """The first row that accepts this skip, or None."""
    for row in DECLARED if rows is None else rows:
        if row.accepts(nodeid, reason):
            return row
    return None


DECLARED: tuple[Capability, ...] = check(
    (
        Capability(
            name="negative-pending-row",
            reason=re.compile(r"^pending: \S"),
            where=re.compile(r"^tests/negative/test_negative_controls\.py::"),
            why="a `status: pending` row of tests/negative/controls.yaml is a declared "
            "gap: it has no killer yet, and the mutation score counts it as not killed",
        ),
        Capability(
            name="negative-chaos-row",
            reason=re.compile(r"^chaos: \S"),
            where=re.compile(r"^tests/negative/test_negative_controls\.py::"),
            why="a `status: chaos` row is judged by tests/chaos/test_negative_controls.py "
            "(its own stage of make test), not by the suite's negative controls",
        ),
        Capability(
            name="chaos-not-applicable",
            reason=re.compile(r"^not applicable: needs \S"),
            where=re.compile(r"^tests/chaos/test_experiments\.py::"),
            why="the experiment needs what the provider or profile declares it does "
            "not offer; the ChaosReport records it as not-applicable with that reason",
        ),
        Capability(
            name="upstream-argo-git",
            reason=re.compile(r"^the upstream (checkout|mirror) .*(absent|missing)"),
            where=re.compile(
                r"^tests/(reference_impl/coverage/test_fields\.py"
                r"|conformance/test_history\.py)::"
            ),
            why="these compare committed data with upstream Argo's git history; the "
            "project never ships upstream source, so they run only where a mirror is",
        ),
        Capability(
            name="git-checkout",
            reason=re.compile(r"^needs a git checkout"),
            where=re.compile(r"^tests/test_packaging\.py::"),
            why="the wheel is compared with git's tracked files; a source tree that is "
            "not a git checkout has no such list (CI and the README use a clone)",
        ),
    )
)
