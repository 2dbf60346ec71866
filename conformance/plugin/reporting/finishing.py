"""The reporting process's end of the run, as a plugin object bound to its config.

Registered by `conformance.plugin.hooks` only in the pytest-xdist controller (or the
only process): it folds every report into the run's `Results`, runs the layout
divergence checks after the test loop, sweeps namespaces the run left behind,
writes the ConformanceReport and JUnit XML, and enforces
`--require-must-coverage`. An interrupted run (`conformance.plugin.reporting.interrupting`)
gets all of that too, after pytest's teardown, with its report marked
`interrupted`: the tests that ran, those cut short, which are not counted, and
how many were collected. The run's state lives on the run object
(`conformance.plugin.state.runs`); only the tests under way are kept here.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

import pytest

from conformance.harness.cluster import kube
from conformance.harness.stage import namespaces
from conformance.plugin.reporting import writing
from conformance.plugin.state import runs
from conformance.report.items import phases
from conformance.report.items import reruns
from conformance.report.items.itemkeys import item_key
from conformance.report.items.records import TestRecord
from conformance.report.rendering import verdicttable
from conformance.report.runs import ledger
from conformance.report.scores import summary

logger = logging.getLogger(__name__)


class Finisher:
    """Hooks of the reporting process."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.running: dict[str, None] = {}
        """Tests started and not finished, in order (a dict as an ordered set)."""

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """A test starts (here or, under pytest-xdist, on a worker)."""
        self.running[nodeid] = None

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """A test ended, teardown included; an interrupted one never does."""
        self.running.pop(nodeid, None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold a suite test's report into the run's results."""
        runs.of(self.config).results.add(report)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[Any]) -> None:
        """Note a stop that no signal handler of ours saw (pytest's own, xdist's)."""
        run = runs.of(self.config)
        if run.interrupted_by is None and isinstance(excinfo.value, KeyboardInterrupt):
            run.interrupted_by = str(excinfo.value) or "KeyboardInterrupt"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """After every test ran: compare layouts; undeclared differences fail."""
        result = yield
        if not self.config.option.collectonly:
            runs.of(self.config).diffs = list(writing.check_divergences(self.config))
        return result

    def _sweep(self) -> None:
        context = runs.of(self.config).context
        if context is None:
            return
        clients = runs.of(self.config).clients()
        leftovers = clients.core.list_namespace(
            label_selector=kube.session_selector(context.session_id)
        ).items
        leaks = [ns.metadata.name for ns in leftovers]
        runs.of(self.config).leaks = leaks
        for name in leaks:
            namespaces.delete(
                clients,
                name=name,
                session_id=context.session_id,
                timeouts=runs.of(self.config).timeouts,
            )

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session
    ) -> Generator[None, Any, Any]:
        """Sweep leaks, write the reports, enforce MUST coverage if asked.

        A wrapper, innermost: it runs after pytest's own session finish, which
        tears down what an interrupted test left set up (the sweep must come
        after that teardown), also when that teardown fails, and before the
        terminal summary, which shows what it wrote.
        """
        try:
            return (yield)
        finally:
            if not self.config.option.collectonly:
                self._finish(session)

    def _interrupted(self, session: pytest.Session) -> None:
        """Mark the run interrupted: what ran, what was cut short (and not counted)."""
        run = runs.of(self.config)
        run.results.drop(set(self.running))
        run.interruption = {
            "reason": run.interrupted_by,
            "ran": [r.nodeid for r in run.results.records() if r.kind == "scenario"],
            "unfinished": list(self.running),
            "collected": session.testscollected,
        }

    def _finish(self, session: pytest.Session) -> None:
        if runs.of(self.config).interrupted_by is not None:
            self._interrupted(session)
        try:
            self._sweep()
        except (
            Exception
        ) as exc:  # broad on purpose: a failed sweep must not lose the report
            logger.warning("Leak sweep failed: %s", exc)
            runs.of(self.config).leaks = [f"sweep failed: {exc}"]
        diffs = runs.of(self.config).diffs
        written = writing.write_outputs(self.config, diffs)
        runs.of(self.config).written = [str(p) for p in written]
        settings = runs.of(self.config).settings
        if settings.require_must_coverage:
            gaps = ledger.build(
                runs.of(self.config).spec,
                runs.of(self.config).declarations.values(),
            ).uncovered_must
            if gaps:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
                runs.of(self.config).written.append(
                    "MUST clauses without a test: " + ", ".join(g.clause for g in gaps)
                )
        if runs.of(self.config).interruption is not None:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The verdict table, reruns, the suite's two scores and slowest items, then paths.

        Reruns: every item that needed one ("Needed a rerun: N"). The synthetic
        and historical scores (`report.scores.summary`) each say STALE when measured on
        other code or another spec, and "not carried" when not given.
        """
        run = runs.of(self.config)
        records = run.results.records()
        table = verdicttable.table(records, interrupted=run.interruption)
        if records:
            table += ["", *reruns.summary(records)]
        if table:
            table += ["", *summary.lines(run.mutation_score, run.historical_score)]
            table += ["", *slowest(records)]
        lines = run.written
        if table or lines:
            terminalreporter.section("wpc conformance")
            for line in table:
                terminalreporter.write_line(line)
            if table and lines:
                terminalreporter.write_line("")
            for line in lines:
                terminalreporter.write_line(line)


def slowest(records: list[TestRecord]) -> list[str]:
    """The run's slowest items, each with its slowest phase: where the time went."""
    lines = phases.slowest_lines(
        phases.Timed(
            name=item_key(short_name=r.short_name, nodeid=r.nodeid, layout=r.layout),
            seconds=r.duration,
            phases=phases.build(r.phase_durations, r.phase_parts),
        )
        for r in records
        if r.kind == "scenario"
    )
    return [f"Slowest items ({len(lines)}):", *lines] if lines else []
