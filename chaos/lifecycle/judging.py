"""Judge one experiment run and add it to the implementation's ChaosReport.

The outcome, in order of precedence:

- `error`: the steady state did not hold before the fault (the cluster was not
  fit to experiment on), an activity hit a harness or cluster error, or the
  cleanup failed;
- `not-applicable`: an activity found the fault cannot be injected here
  (`Unsupported`, the backstop: `chaos.lifecycle.control` stops the method there);
  an experiment whose declared needs are not offered never gets this far
  (`not_applicable()`, written before anything is installed);
- `injection-unverified`: no probe showed that the fault landed, or that the
  workload was in the targeted state when it did; then nothing else counts,
  since a pass would prove nothing;
- `failed`: a probe's expectation failed, the steady state did not return, or
  the history broke an invariant;
- `passed` otherwise.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import logging
import os
import re
import subprocess
import time
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from chaos import activities
from chaos.declarations import Declaration
from chaos.errors import HistoryError
from chaos.history.records import load_history
from chaos.invariants import check
from chaos.invariants.violations import Violation
from chaos.reporting import junit_xml
from chaos.reporting.chaos_report import Check
from chaos.reporting.chaos_report import ExperimentResult
from chaos.reporting.chaos_report import RunContext
from chaos.reporting.chaos_report import build_report
from chaos.reporting.chaos_report import summarize
from chaos.reporting.chaos_report import write_report
from chaos.reporting.index_page import write_index
from chaos.reporting.timeline_page import FaultWindow
from chaos.reporting.timeline_page import write_timeline
from chaos.sessions import BEFORE
from chaos.sessions import ENDED
from chaos.sessions import Session
from chaos.sessions import Wait
from chaos.settings import ChaosSettings
from conformance.harness.cluster import kube
from conformance.implementations.profiles import Profile

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
NOT_APPLICABLE = "not-applicable"

ACTIVITY_FAILED = re.compile(r"^chaoslib\.exceptions\.ActivityFailed: ")
EXCEPTION_NAME = re.compile(r"^(?:\w+\.)+\w+: ")
"""The (module-qualified) exception names a probe's message is quoted without."""


def steady_state(
    journal: Mapping[str, Any], when: str, waits: Sequence[Wait] = ()
) -> Check:
    """The journal's steady-state verdict `before` or `after` the method.

    Each probe says whether its state held and, when it did not, what was
    expected and what was observed (the probe's own message, or the value it
    returned against the tolerance); `waits` are what the run waited for first.
    """
    found = (journal.get("steady_states") or {}).get(when)
    if not found:
        return Check(ok=False, details=f"the hypothesis did not run {when} the method")
    probes = [_probe_verdict(p) for p in found.get("probes") or []]
    probes += [f"{w.label}: {w.end - w.start:.1f} s" for w in waits]
    return Check(ok=bool(found.get("steady_state_met")), details="; ".join(probes))


def _probe_verdict(run: Mapping[str, Any]) -> str:
    """`name: held`, or `name: not met: <expected and observed>`."""
    name = run["activity"]["name"]
    if run.get("status") == "failed":
        said = (run.get("exception") or ["the probe failed"])[-1].strip()
        said = ACTIVITY_FAILED.sub("", said, count=1)
        return f"{name}: not met: {EXCEPTION_NAME.sub('', said, count=1)}"
    if not run.get("tolerance_met", True):
        tolerance = run["activity"].get("tolerance")
        return (
            f"{name}: not met: expected {tolerance!r}, observed {run.get('output')!r}"
        )
    return f"{name}: held"


def outcome(
    session: Session,
    *,
    before: Check,
    after: Check,
    violations: list[Violation],
    teardown_errors: list[str],
) -> str:
    """The outcome by the precedence of the module docstring."""
    kinds = {f.kind for f in session.failures}
    if not before.ok or activities.ERROR in kinds or teardown_errors:
        return "error"
    if activities.UNSUPPORTED in kinds:
        return NOT_APPLICABLE
    if not session.injections or not session.vulnerable:
        return "injection-unverified"
    if activities.EXPECTATION in kinds or not after.ok or violations:
        return "failed"
    return "passed"


def _evidence(session: Session) -> str:
    def lines(title: str, notes: list[Any]) -> list[str]:
        offset = [
            f"+{n.at - session.started:.1f}s {n.activity}: {n.text}" for n in notes
        ]
        return [f"{title}:", *offset] if offset else [f"{title}: none recorded"]

    return "\n".join(
        [
            *lines("vulnerable state", session.vulnerable),
            *lines("fault landed", session.injections),
        ]
    )


def _fault_window(session: Session) -> FaultWindow | None:
    if not session.faults:
        return None
    end = max((f.end or time.time()) for f in session.faults)
    labels = ", ".join(dict.fromkeys(f.label for f in session.faults))
    return FaultWindow(
        start=min(f.start for f in session.faults), end=end, label=labels
    )


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _context(profile: Profile, provider: str, clients: kube.Clients) -> RunContext:
    from kubernetes import client

    try:
        version = str(client.VersionApi(clients.api).get_code().git_version)
    except Exception:
        version = "unknown"
    return RunContext(
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        suite_version="0.1.0",
        suite_commit=_commit(),
        implementation_name=profile.name,
        implementation_profile=str(profile.path),
        provider=provider,
        kubernetes_version=version,
    )


def report_path(reports_dir: Path, implementation: str) -> Path:
    """`reports/chaos-<impl>.yaml`."""
    return reports_dir / f"chaos-{implementation}.yaml"


@contextlib.contextmanager
def _locked(report: Path) -> Iterator[None]:
    """Hold the report's lock file while the block reads and rewrites the report.

    `make chaos` runs the two layouts' experiments in parallel processes that
    add to one report; each change is a read-modify-write, so without the lock
    one process's entry could be lost. The kernel releases the `flock` when the
    holder exits; the lock file is never followed through a symbolic link.
    """
    report.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(
        report.with_name(report.name + ".lock"),
        os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # blocks in the kernel: writers are brief
        yield
    finally:
        os.close(fd)


def _write(report: dict[str, Any], path: Path) -> None:
    """The report, its JUnit twin and its HTML page (which links the timelines)."""
    write_report(report, path)
    junit_xml.write(path.with_suffix(".junit.xml"), report)
    write_index(report, path.with_suffix(".html"))


def add_to_report(path: Path, context: RunContext, result: ExperimentResult) -> None:
    """Replace this experiment/layout's entry in the report at `path` (or start one)."""
    with _locked(path):
        kept: list[dict[str, Any]] = []
        if path.exists():
            old = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            kept = [
                e
                for e in old.get("experiments") or []
                if (e.get("name"), e.get("layout")) != (result.name, result.layout)
            ]
        report = build_report(context, [])
        report["experiments"] = [*kept, result.to_dict()]
        report["experiments"].sort(key=lambda e: (e["name"], e["layout"]))
        report["summary"] = summarize(report["experiments"])
        _write(report, path)


def drop_entries(path: Path, runs: set[tuple[str, str]]) -> None:
    """Remove the (experiment, layout) entries about to run again from the report."""
    with _locked(path):
        if not path.exists():
            return
        report = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        kept = [
            e
            for e in report.get("experiments") or []
            if (e["name"], e["layout"]) not in runs
        ]
        if not kept:
            path.unlink()
            path.with_suffix(".junit.xml").unlink(missing_ok=True)
            path.with_suffix(".html").unlink(missing_ok=True)
            return
        report["experiments"] = kept
        report["summary"] = summarize(kept)
        _write(report, path)


def finish(
    session: Session,
    journal: Mapping[str, Any],
    *,
    teardown_errors: list[str],
    aftermath: str = "",
) -> ExperimentResult:
    """Check the history, draw the timeline, compute the outcome, write the report.

    `aftermath`: why the controller was not available again after the
    rollbacks (`chaos.lifecycle.probes.controller_is_back`); the steady state after the
    experiment did not return, so the experiment failed.
    """
    declared = session.declaration
    violations: list[Violation] = []
    timeline = session.run_dir / "timeline.html"
    try:
        history = load_history(session.history_path)
    except HistoryError as exc:
        if session.recorded:  # a method that never began has no history to judge
            teardown_errors = [*teardown_errors, f"no usable history: {exc}"]
    else:
        violations = check(history, declared.invariant_settings, declared.invariants)
        write_timeline(
            timeline,
            history,
            _fault_window(session),
            waits=[FaultWindow(w.start, w.end, w.label) for w in session.waits],
            title=f"{declared.name} ({session.settings.layout}, {session.profile.name})",
        )
    before = steady_state(
        journal, "before", [w for w in session.waits if w.phase == BEFORE]
    )
    after = steady_state(
        journal, "after", [w for w in session.waits if w.phase == ENDED]
    )
    if aftermath:
        after = Check(ok=False, details=f"{after.details}; {aftermath}")
    verdict = outcome(
        session,
        before=before,
        after=after,
        violations=violations,
        teardown_errors=teardown_errors,
    )
    result = ExperimentResult(
        name=declared.name,
        layout=session.settings.layout,
        outcome=verdict,
        injection_verified=bool(session.injections and session.vulnerable),
        injection_evidence=_evidence(session),
        steady_state_before=before,
        steady_state_after=after,
        invariants_checked=declared.invariants,
        violations=tuple(violations),
        duration_seconds=round(time.time() - session.started, 1),
        history_path=str(session.history_path),
        timeline_path=str(timeline),
        failed_checks=tuple((f.activity, f.kind, f.message) for f in session.failures)
        + tuple(("teardown", activities.ERROR, e) for e in teardown_errors),
        faults=tuple(
            (f.label, f.start, f.end if f.end is not None else time.time())
            for f in session.faults
        ),
        reason="; ".join(
            f"{f.activity}: {f.message}"
            for f in session.failures
            if f.kind == activities.UNSUPPORTED
        )
        if verdict == NOT_APPLICABLE
        else "",
    )
    path = report_path(session.settings.reports_dir, session.profile.name)
    add_to_report(
        path,
        _context(session.profile, session.settings.provider, session.clients),
        result,
    )
    logger.info(
        "[%s] %s in %s: %s (%d violation(s)); report %s",
        declared.name,
        session.settings.layout,
        f"{result.duration_seconds:g} s",
        verdict,
        len(violations),
        path,
    )
    return result


def not_applicable(
    *,
    declared: Declaration,
    settings: ChaosSettings,
    profile: Profile,
    clients: kube.Clients,
    reasons: list[str],
) -> ExperimentResult:
    """Report the experiment as not applicable, for `reasons`, without running it.

    Nothing ran: no steady state was checked, no fault injected, no history
    recorded; the entry says so and why.
    """
    not_run = Check(ok=False, details="not checked: the experiment does not apply")
    result = ExperimentResult(
        name=declared.name,
        layout=settings.layout,
        outcome=NOT_APPLICABLE,
        injection_verified=False,
        injection_evidence="no fault injected: the experiment does not apply",
        steady_state_before=not_run,
        steady_state_after=not_run,
        invariants_checked=declared.invariants,
        violations=(),
        duration_seconds=0.0,
        history_path="",
        timeline_path="",
        reason="; ".join(reasons),
    )
    path = report_path(settings.reports_dir, profile.name)
    add_to_report(path, _context(profile, settings.provider, clients), result)
    logger.info(
        "[%s] %s: not applicable (%s); report %s",
        declared.name,
        settings.layout,
        result.reason,
        path,
    )
    return result
