"""The reporting process's end of the run, as a plugin object bound to its config.

Registered by `conformance.plugin.hooks` only in the pytest-xdist controller (or the
only process): it folds every report into the run's `Results`, runs the layout
divergence checks after the test loop, sweeps namespaces the run left behind,
writes the ConformanceReport and JUnit XML, and enforces
`--require-must-coverage`. All state stays in `config.stash`.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

import pytest

from conformance.harness import kube
from conformance.harness import namespaces
from conformance.plugin import state
from conformance.plugin import writing
from conformance.report import ledger

logger = logging.getLogger(__name__)


class Finisher:
    """Hooks of the reporting process."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold a suite test's report into the run's results."""
        self.config.stash[state.RESULTS].add(report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """After every test ran: compare layouts; undeclared differences fail."""
        result = yield
        if not self.config.option.collectonly:
            self.config.stash[state.DIFFS] = list(
                writing.check_divergences(self.config)
            )
        return result

    def _sweep(self) -> None:
        context = self.config.stash.get(state.CONTEXT, None)
        if context is None:
            return
        clients = kube.connect(context.kubeconfig)
        leftovers = clients.core.list_namespace(
            label_selector=kube.session_selector(context.session_id)
        ).items
        leaks = [ns.metadata.name for ns in leftovers]
        self.config.stash[state.LEAKS] = leaks
        for name in leaks:
            namespaces.delete(
                clients,
                name=name,
                session_id=context.session_id,
                timeouts=self.config.stash[state.TIMEOUTS],
            )

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Sweep leaks, write the reports, enforce MUST coverage if asked."""
        if self.config.option.collectonly:
            return
        try:
            self._sweep()
        except (
            Exception
        ) as exc:  # broad on purpose: a failed sweep must not lose the report
            logger.warning("Leak sweep failed: %s", exc)
            self.config.stash[state.LEAKS] = [f"sweep failed: {exc}"]
        diffs = self.config.stash.get(state.DIFFS, [])
        written = writing.write_outputs(self.config, diffs)
        self.config.stash[state.WRITTEN] = [str(p) for p in written]
        settings = self.config.stash[state.SETTINGS]
        if settings.require_must_coverage:
            gaps = ledger.build(
                self.config.stash[state.SPEC],
                self.config.stash[state.DECLARATIONS].values(),
            ).uncovered_must
            if gaps:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
                self.config.stash[state.WRITTEN].append(
                    "MUST clauses without a test: " + ", ".join(g.clause for g in gaps)
                )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Point at the reports and name the gaps."""
        lines = self.config.stash.get(state.WRITTEN, [])
        if lines:
            terminalreporter.section("wpc conformance")
            for line in lines:
                terminalreporter.write_line(line)
