"""The deliberate task-result faults, committed once the task result is complete.

Two negative controls for the task-result contract (contract section 6), both
run by wait (legacy) or the supervisor (init-less) right after `finalize`, so
that every task result still reaches `report-outputs-completed: "true"` first
(the suite's ResultTaskResults waits for that before it checks anything):

- `result-reopened` (WPC-RESULT-003): when a main container failed,
  the label goes back to "false" and the aux container exits 64. The exit is
  what lets the workflow complete: an aux container that failed tells the
  controller the task result will never complete, where a label of "false"
  alone would hold the workflow for the task-result timeout (10 minutes). The
  node stays `Failed` with main's message (main outranks the aux container).
- `result-read-back` (WPC-RESULT-006): an executor with no result to capture
  (ARGO_INCLUDE_SCRIPT_OUTPUT not `true`) reads its task result back with
  `get`, a verb the executor's minimal RBAC (create and patch) does not grant,
  and exits 64 on the denial, so the node of a main that exited 0 ends
  `Error`. A node whose result is captured is spared so that a step whose
  result feeds the next step still lets that step run.
"""

from __future__ import annotations

from reference_impl.executor.api import taskresults
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.faults import Fault
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings


def after_finalize(
    *,
    settings: ExecutorSettings,
    paths: Paths,
    mains: list[str],
    reporter: taskresults.Reporter,
) -> ExecutorError | None:
    """Commit this process's task-result fault, if any; the error to exit 64 with."""
    try:
        if settings.fault is Fault.RESULT_REOPENED:
            failed = [c for c in mains if _exit_code(paths, c) != "0"]
            if failed:
                reporter.reopen()
                return ExecutorError(
                    f"{Fault.RESULT_REOPENED.value}: main containers "
                    f"{failed} failed; task result marked incomplete again"
                )
        elif (
            settings.fault is Fault.RESULT_READ_BACK
            and not settings.include_script_output
        ):
            reporter.read_back()
    except ExecutorError as err:
        return err
    return None


def _exit_code(paths: Paths, container: str) -> str:
    try:
        return paths.exitcode(container).read_text().strip()
    except OSError:
        return ""
