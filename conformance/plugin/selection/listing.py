"""`run --list`: what a run would execute, and why anything would not run (#12).

The answer comes from pytest's own collection of the suite through this plugin
(`--collect-only`), not from a second reading of the markers, so it cannot
drift from what a run does: the same layout fan-out, the same deselection of
layouts not selected, the same "implementation does not claim X" skips. What
collection leaves implicit is made explicit: a layout a test has no item for
because its clauses do not apply there. Each line names the item by its
identity and clauses, the names `--select` takes; items a `--select` leaves
out are only counted, so a selection lists exactly what it runs.

Collect-only never prepares the run (`hooks.pytest_sessionstart` returns first),
so no cluster is made or contacted and no fixture runs; `Lister` refuses the
prepare hook as well, so a change there cannot make `--list` touch a cluster
unnoticed. pytest's cache is off, so listing writes nothing.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from conformance import contract
from conformance.errors import ConformanceError
from conformance.exitcodes import ExitCode
from conformance.plugin.selection import collection
from conformance.plugin.selection import selecting
from conformance.plugin.state import keys
from conformance.plugin.state import preloaded
from conformance.plugin.state import runs
from conformance.report.items.records import scenario_of

RUNS = "run"
SKIPPED = "skip"
NOT_SELECTED = "not selected"
NOT_APPLICABLE = "not applicable"


@dataclass(frozen=True)
class Entry:
    """One test in one layout, and what a run would do with it."""

    test_id: str
    """Its stable identity (`conformance.report.items.identity`), as reports key it."""
    short_name: str
    layout: str
    status: str
    """RUNS, SKIPPED, NOT_SELECTED or NOT_APPLICABLE."""
    reason: str = ""
    clauses: tuple[str, ...] = ()

    def line(self) -> str:
        """The entry as `--list` prints it: names `--select` takes, then why."""
        clauses = f"  {' '.join(self.clauses)}" if self.clauses else ""
        because = f"  ({self.reason})" if self.reason else ""
        return f"{self.status:<14} {self.layout:<9} {self.test_id}{clauses}{because}"


class Lister:
    """A pytest plugin noting every suite item after the suite's own collection."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        """The one entry of each test ID: noted again, it is replaced."""
        self.errors: list[str] = []
        self.left_out = 0
        """Items `--select` left out: counted, not listed."""
        self.stopped = ""
        """Why the plugin stopped collection (`pytest.exit`), e.g. a dud --select."""

    def pytest_keyboard_interrupt(
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> None:
        """Keep the message of a `pytest.exit` (pytest calls this hook for both)."""
        if isinstance(excinfo.value, pytest.exit.Exception):
            self.stopped = excinfo.value.msg

    @pytest.hookimpl(tryfirst=True)
    def pytest_wpc_prepare_run(self, **_: Any) -> None:
        """Never reached under collect-only; refuse loudly if it ever is."""
        raise ConformanceError("--list never prepares a run or touches a cluster")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Keep collection errors: a broken test module must not vanish from a list."""
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext}")

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        """Items of layouts not selected with --layout, or deselected by -k / -m."""
        for item in items:
            if selecting.leaves_out(item.config, item):
                # Left out by --select (also one of a layout not selected).
                self.left_out += 1
                continue
            noted = self.entries.get(item.stash.get(keys.TEST_ID, ""))
            if noted is not None and noted.status in (RUNS, SKIPPED):
                # Noted as run or skipped, then left out by the last hook: the shard.
                self._note(item, NOT_SELECTED, "in another shard (--shard)")
                continue
            run = runs.get(item.config)
            selected = run.settings.layouts if run is not None else ()
            layout = item.stash.get(keys.LAYOUT, "")
            reason = (
                "deselected by -k/-m"
                if layout in selected
                else "layout not selected with --layout"
            )
            self._note(item, NOT_SELECTED, reason)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """After the suite's own hook: what runs and what is skipped, and why."""
        for item in items:
            skip = item.get_closest_marker("skip")
            if skip is not None:
                reason = str(skip.kwargs.get("reason", "skipped"))
                self._note(item, SKIPPED, reason)
            else:
                self._note(item, RUNS, "")

    def _note(self, item: pytest.Item, status: str, reason: str) -> None:
        decl = item.stash.get(keys.DECLARATION, None)
        if decl is None:
            return
        layout = item.stash[keys.LAYOUT]
        test_id = item.stash[keys.TEST_ID]
        self.entries[test_id] = Entry(
            test_id, decl.short_name, layout, status, reason, decl.clauses
        )
        if layout != decl.layouts[0]:
            return
        # Once per test: the layouts it has no item for at all.
        scenario = scenario_of(test_id, layout)
        for other in contract.LAYOUTS:
            if other not in decl.layouts:
                self.entries[f"{scenario}[{other}]"] = Entry(
                    f"{scenario}[{other}]",
                    decl.short_name,
                    other,
                    NOT_APPLICABLE,
                    f"its clauses apply only to {', '.join(decl.layouts)}",
                    decl.clauses,
                )


def pytest_args(suite_args: Sequence[str]) -> list[str]:
    """The collect-only pytest arguments: the suite, its options, nothing written."""
    return [
        str(collection.SUITE_DIR),
        *suite_args,
        "--collect-only",
        "-p",
        "no:cacheprovider",
        "-q",
        # A user's PYTEST_ADDOPTS or ini `-n 4` must not start workers to list.
        "-p",
        "no:xdist",
        # pytest runs in the launcher's process, which has imported some of the
        # project's packages already; collecting needs no assertion rewriting,
        # and the ini's `filterwarnings = error` would turn pytest's notice
        # about it into a crash of `run --list` (seen: "Module already imported
        # so cannot be rewritten; plumbing").
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
    ]


@dataclass(frozen=True)
class Listing:
    """What `--list` found: pytest's exit code, the entries, collection errors."""

    exit_code: int
    """pytest's, except that its usage error (a bad option, profile or ini value)
    is INVALID_INPUT, the code `run` gives the same mistakes in preflight."""
    entries: tuple[Entry, ...]
    errors: tuple[str, ...]
    left_out: int = 0
    """Items `--select` left out (not listed, so a selection lists only itself)."""

    def lines(self) -> list[str]:
        """The listing as printed: entries in suite order, then a count per status."""
        order = {layout: i for i, layout in enumerate(contract.LAYOUTS)}
        entries = sorted(
            self.entries,
            key=lambda e: (e.test_id.rpartition("[")[0], order.get(e.layout, 9)),
        )
        lines = [entry.line() for entry in entries]
        counts: dict[str, int] = {}
        for entry in self.entries:
            counts[entry.status] = counts.get(entry.status, 0) + 1
        totals = [
            f"{counts.get(s, 0)} {s}"
            for s in (RUNS, SKIPPED, NOT_SELECTED, NOT_APPLICABLE)
        ]
        if self.left_out:
            totals.append(f"{self.left_out} left out by --select")
        lines.append(", ".join(totals))
        lines += [f"collection error: {error}" for error in self.errors]
        return lines


def collect(
    suite_args: Sequence[str], *, profile: preloaded.Preloaded | None = None
) -> Listing:
    """Collect the suite in this process with the plugin's options `suite_args`.

    `profile`: the profile this process loaded for these options already, so
    that the plugin does not load it again (`conformance.plugin.state.preloaded`).
    """
    lister = Lister()
    # pytest's own collect-only tree would repeat the listing without the reasons;
    # it goes to stderr only when collection failed, as the explanation.
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        plugins: list[object] = [lister] if profile is None else [lister, profile]
        code = pytest.main(pytest_args(suite_args), plugins=plugins)
    if lister.stopped:
        # The plugin's own verdict on its input: one line, not the whole tree.
        sys.stderr.write(f"error: {lister.stopped}\n")
    elif code != pytest.ExitCode.OK:
        sys.stderr.write(shown.getvalue())
    if code == pytest.ExitCode.USAGE_ERROR:
        code = ExitCode.INVALID_INPUT
    return Listing(
        int(code), tuple(lister.entries.values()), tuple(lister.errors), lister.left_out
    )
