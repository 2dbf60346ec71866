"""We test these aspects of `argoexec supervisor` (contract 2.3), with a fake API and clock:

a successful pre-main ends in READY with the template, script and input
artifacts staged, then outputs are reported and the task result finalized;
a pre-main failure writes FAILED\n<message> with the exact upstream wording,
skips outputs, still finalizes, and exits 64 with the message; the
`never-ready` fault leaves the marker RUNNING; `no-atomic-write` writes in place.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from reference_impl import common
from reference_impl.executor.api import taskresults
from reference_impl.executor.commands.supervising import run_supervisor
from reference_impl.executor.faults import Fault
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.settings import Timings
from reference_impl.executor.staging.postmain import AuxInputs
from tests.reference_impl.executor.conftest import FakeClock
from tests.reference_impl.executor.conftest import FakeStore

TEMPLATE: dict[str, Any] = {
    "script": {"image": "busybox", "source": "echo hi"},
    "inputs": {
        "artifacts": [{"name": "in", "path": "/in.txt", "raw": {"data": "payload"}}]
    },
    "outputs": {"parameters": [{"name": "p", "valueFrom": {"path": "/p.txt"}}]},
}


def supervise(
    paths: Paths,
    clock: FakeClock,
    reporter: taskresults.Reporter,
    store: FakeStore,
    template: dict[str, Any] = TEMPLATE,
    **overrides: Any,
) -> int:
    base = ExecutorSettings(
        container_name="supervisor",
        template_env=json.dumps(template),
        timings=Timings(file_poll=0.01),
        include_script_output=True,
    )
    return run_supervisor(
        AuxInputs(
            settings=dataclasses.replace(base, **overrides),
            paths=paths,
            clock=clock,
            reporter=reporter,
            stores_for=store.factory,
        )
    )


def main_has_exited(
    paths: Paths, *, stdout: str = "hi\n", param: str = "value\n"
) -> None:
    """What main's emissary leaves behind, so post-main does not wait."""
    paths.ctr("main").mkdir(parents=True)
    paths.stdout("main").write_text(stdout)
    paths.output_parameter("/p.txt").parent.mkdir(parents=True)
    paths.output_parameter("/p.txt").write_text(param)
    paths.exitcode("main").write_text("0")


def test_successful_pre_main_ends_in_ready_and_reports(
    paths, clock, reporter, api, store
):
    main_has_exited(paths)
    assert supervise(paths, clock, reporter, store) == 0
    assert paths.status.read_bytes() == b"READY\n"
    assert json.loads(paths.template.read_text()) == TEMPLATE
    assert paths.template.stat().st_mode & 0o777 == 0o444
    assert paths.script.read_text() == "echo hi"
    assert paths.script.stat().st_mode & 0o777 == 0o755
    assert paths.input_artifact("in").read_text() == "payload"
    result = api.objects["wf-123"]
    assert result["outputs"]["result"] == "hi"
    assert result["outputs"]["parameters"][0]["value"] == "value"
    assert result["metadata"]["labels"][common.LABEL_REPORT_OUTPUTS_COMPLETED] == "true"


def test_pre_main_failure_writes_failed_and_exits_64(
    paths, clock, reporter, api, store
):
    main_has_exited(paths)
    template = {"inputs": {"artifacts": [{"name": "in", "path": "/in.txt"}]}}
    assert supervise(paths, clock, reporter, store, template=template) == 64
    message = (
        "failed to load non-plugin input artifacts: required artifact 'in' not supplied"
    )
    assert paths.status.read_bytes() == f"FAILED\n{message}".encode()
    assert paths.termination_log.read_text() == message
    result = api.objects["wf-123"]
    assert "outputs" not in result
    assert result["metadata"]["labels"][common.LABEL_REPORT_OUTPUTS_COMPLETED] == "true"


def test_unusable_template_is_reported_as_a_template_write_failure(
    paths, clock, reporter, store
):
    main_has_exited(paths)
    code = run_supervisor(
        AuxInputs(
            settings=ExecutorSettings(
                template_env="{not json", timings=Timings(file_poll=0.01)
            ),
            paths=paths,
            clock=clock,
            reporter=reporter,
            stores_for=store.factory,
        )
    )
    assert code == 64
    assert paths.status.read_text().startswith("FAILED\nfailed to write template: ")


def test_unwritable_marker_is_an_initial_write_failure(paths, clock, reporter, store):
    main_has_exited(paths)
    paths.status.mkdir()  # a directory cannot be replaced by a file
    assert supervise(paths, clock, reporter, store) == 64
    assert paths.termination_log.read_text().startswith(
        "failed to write initial status marker: "
    )


def test_never_ready_fault_keeps_the_marker_running(paths, clock, reporter, store):
    main_has_exited(paths)
    supervise(paths, clock, reporter, store, fault=Fault.NEVER_READY)
    reading = markers.read_status(paths.status)
    assert reading is not None
    assert reading.token == markers.RUNNING


def test_no_atomic_write_fault_never_uses_the_tmp_file(paths, clock, reporter, store):
    main_has_exited(paths)
    paths.status_tmp.mkdir()  # any use of status.tmp would now fail
    assert supervise(paths, clock, reporter, store, fault=Fault.NO_ATOMIC_WRITE) == 0
    assert paths.status.read_bytes() == b"READY\n"
