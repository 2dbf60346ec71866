"""Under WPC_STRICT_SKIPS=1, a skip that is not a declared capability fails the session.

Why: a skip is silent; on a machine missing a tool, whole checks (RBAC, manifests)
vanished from `make test` while it stayed green. The Makefile's `test` target sets the
variable for every pytest stage; `make unit-test` and plain pytest leave it off, so a
developer's partial machine still runs what it can.

Scope: the project's own tests, those whose node id starts with `tests/` (relative to
the rootdir). The conformance suite (conformance/tests) runs in sessions of its own
through its plugin and reports an unclaimed feature as "not claimed", a result; this
plugin is not loaded there. Accepted skips are listed in `tests/capabilities.py`.
An xfail marker is not a skip here (`xfail_strict` judges those), but an imperative
`pytest.xfail("...")` is: it ends a test as "xfailed" whatever the marker says, so it
would let a test bail out past this gate. It is judged as a skip with the reason
`xfail: <its reason>`, and declared in tests/capabilities.py like one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

import pytest

from tests import capabilities

VARIABLE = "WPC_STRICT_SKIPS"
SCOPE = "tests/"
EXIT_CODE = pytest.ExitCode.TESTS_FAILED
XFAIL_MARKER = "xfail"
XFAIL_PREFIX = "xfail: "
"""How the reason of an imperative `pytest.xfail()` reads in the gate's lists."""


def strict(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the gate is on: WPC_STRICT_SKIPS=1 (anything else but unset/0 is an error)."""
    env = os.environ if environ is None else environ
    value = env.get("WPC_STRICT_SKIPS", "")
    if value not in ("", "0", "1"):
        raise pytest.UsageError(f"{VARIABLE}={value!r}: use 1 (on) or 0 / unset (off)")
    return value == "1"


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason pytest shows for a skip (without its `Skipped: ` prefix)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


@dataclass(eq=False)
class Gate:
    """Collects the skips of one session and judges them at its end.

    `eq=False` keeps object identity as its hash: pluggy keeps plugins in sets, and a
    dataclass that compares by value is unhashable (an INTERNALERROR at collection).
    """

    accepted: list[tuple[str, str, str]] = field(default_factory=list)
    undeclared: list[tuple[str, str]] = field(default_factory=list)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.judge(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # A module that skips as a whole (pytest.skip(..., allow_module_level=True)).
        self.judge(report)

    def judge(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        """Record one skip, accepted or not; ignore every other outcome."""
        if not report.skipped or not report.nodeid.startswith(SCOPE):
            return
        if hasattr(report, "wasxfail"):
            if XFAIL_MARKER in report.keywords:
                return  # an expected failure the test declares; xfail_strict judges it
            reason = f"{XFAIL_PREFIX}{report.wasxfail}"
        else:
            reason = skip_reason(report)
        row = capabilities.declared(report.nodeid, reason)
        if row is None:
            self.undeclared.append((report.nodeid, reason))
        else:
            self.accepted.append((report.nodeid, reason, row.name))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int | pytest.ExitCode
    ) -> None:
        # A failing session keeps its own code; a green one (or one whose only
        # collected module skipped as a whole) fails for the undeclared skips.
        quiet = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
        if self.undeclared and exitstatus in quiet:
            session.exitstatus = EXIT_CODE

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> None:
        write = terminalreporter.write_line
        if self.accepted:
            terminalreporter.section(f"{VARIABLE}: declared skips", sep="-")
            for nodeid, reason, name in self.accepted:
                write(f"{name}: {nodeid}: {reason}")
        if self.undeclared:
            terminalreporter.section(
                f"{VARIABLE}: {len(self.undeclared)} undeclared skip(s) fail the session",
                sep="=",
                red=True,
                bold=True,
            )
            for nodeid, reason in self.undeclared:
                write(f"UNDECLARED SKIP {nodeid}: {reason}", red=True)
            write(
                "make test must run these here: remove the cause, or declare the skip "
                "in tests/capabilities.py with why it is acceptable"
            )


def pytest_configure(config: pytest.Config) -> None:
    # xdist workers only run tests; the controller sees every report and judges.
    if strict() and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Gate(), "wpc-skip-gate")
