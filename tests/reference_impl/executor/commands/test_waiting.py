"""We test these aspects of `argoexec wait` and its collection of outputs (contract 1.5, 6):

the script result (one trailing newline trimmed, only the last 256 KiB),
parameters (trimmed, defaults, errors), artifacts (uploaded under the archive
key as <name>.tgz, optional ones skipped, no repository is Argo's error), the
task result lifecycle (created empty, outputs, label "true" even after errors),
the first error as termination message with exit 64, artifact-plugin sidecars
killed by file, and the deadline monitor (message + kill by file).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import tarfile
from typing import Any

from reference_impl import common
from reference_impl.executor import faults
from reference_impl.executor.api import taskresults
from reference_impl.executor.commands.waiting import run_wait
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.settings import Timings
from reference_impl.executor.staging import collecting
from reference_impl.executor.staging.deadlines import DeadlineMonitor
from reference_impl.executor.staging.postmain import AuxInputs
from reference_impl.executor.templates import Template
from tests.reference_impl.executor.conftest import START
from tests.reference_impl.executor.conftest import FakeClock
from tests.reference_impl.executor.conftest import FakeStore

REPO = {"s3": {"endpoint": "s3:9000", "bucket": "b", "key": "wf/pod"}}


def wait(
    paths: Paths,
    clock: FakeClock,
    reporter: taskresults.Reporter,
    store: FakeStore,
    template: dict[str, Any],
    **overrides: Any,
) -> int:
    paths.template.write_text(json.dumps(template))
    base = ExecutorSettings(container_name="wait", timings=Timings(file_poll=0.01))
    return run_wait(
        AuxInputs(
            settings=dataclasses.replace(base, **overrides),
            paths=paths,
            clock=clock,
            reporter=reporter,
            stores_for=store.factory,
        )
    )


def exited(paths: Paths, name: str = "main", code: str = "0") -> None:
    paths.ctr(name).mkdir(parents=True, exist_ok=True)
    paths.exitcode(name).write_text(code)


def test_script_result_trims_one_newline(paths):
    paths.ctr("main").mkdir(parents=True)
    paths.stdout("main").write_text("a\n\n")
    assert collecting.script_result(paths=paths) == "a\n"


def test_script_result_keeps_the_last_256_kib(paths):
    paths.ctr("main").mkdir(parents=True)
    paths.stdout("main").write_bytes(b"x" * 10 + b"y" * (256 * 1024) + b"\n")
    assert collecting.script_result(paths=paths) == "y" * (256 * 1024)


def test_parameters_default_and_trim(paths):
    template = Template(
        raw={
            "outputs": {
                "parameters": [
                    {"name": "a", "valueFrom": {"path": "/a"}},
                    {"name": "b", "valueFrom": {"path": "/b", "default": "dflt"}},
                    {"name": "c", "value": "literal"},
                ]
            }
        }
    )
    paths.output_parameter("/a").parent.mkdir(parents=True)
    paths.output_parameter("/a").write_text("va\n")
    params, error = collecting.parameters(template=template, paths=paths)
    assert error is None
    assert [p.get("value") for p in params] == ["va", "dflt", "literal"]


def test_a_missing_parameter_file_stops_saving_with_gos_read_error(paths):
    """upstream SaveParameters returns os.ReadFile's error at the first unreadable
    file without a default; the later parameters keep no value."""
    template = Template(
        raw={
            "outputs": {
                "parameters": [
                    {"name": "a", "valueFrom": {"path": "/a"}},
                    {"name": "gone", "valueFrom": {"path": "/tmp/missing"}},
                    {"name": "b", "valueFrom": {"path": "/a"}},
                ]
            }
        }
    )
    paths.output_parameter("/a").parent.mkdir(parents=True)
    paths.output_parameter("/a").write_text("va\n")
    params, error = collecting.parameters(template=template, paths=paths)
    assert str(error) == (
        f"open {paths.output_parameter('/tmp/missing')}: no such file or directory"
    )
    assert [p.get("value") for p in params] == ["va", None, None]


def test_a_directory_as_parameter_file_is_gos_read_error(paths):
    template = Template(
        raw={"outputs": {"parameters": [{"name": "d", "valueFrom": {"path": "/d"}}]}}
    )
    paths.output_parameter("/d").mkdir(parents=True)
    _, error = collecting.parameters(template=template, paths=paths)
    assert str(error) == f"read {paths.output_parameter('/d')}: is a directory"


def test_wait_reports_parameters_without_value_after_a_missing_file(
    paths, clock, reporter, api, store
):
    """upstream PostMain still calls ReportOutputs with the template's outputs, so
    the node shows the parameter with no value, and wait exits 64 with the error."""
    template = {
        "outputs": {"parameters": [{"name": "required", "valueFrom": {"path": "/x"}}]}
    }
    exited(paths)
    assert wait(paths, clock, reporter, store, template) == 64
    assert paths.termination_log.read_text() == (
        f"open {paths.output_parameter('/x')}: no such file or directory"
    )
    reported = api.objects["wf-123"]["outputs"]["parameters"]
    assert reported == [{"name": "required", "valueFrom": {"path": "/x"}}]


def test_wait_reports_outputs_and_uploads_artifacts(paths, clock, reporter, api, store):
    template = {
        "archiveLocation": REPO,
        "outputs": {"artifacts": [{"name": "art", "path": "/out"}]},
    }
    exited(paths)
    (paths.root / "out").mkdir()
    (paths.root / "out/f").write_text("data")
    from reference_impl.executor.storage import archives

    archives.tar_gz(src=paths.root / "out", dest=paths.output_artifact("/out"))
    assert wait(paths, clock, reporter, store, template) == 0
    assert ("b", "wf/pod/art.tgz") in store.objects
    reported = api.objects["wf-123"]["outputs"]["artifacts"][0]
    assert reported["s3"] == {
        "endpoint": "s3:9000",
        "bucket": "b",
        "key": "wf/pod/art.tgz",
    }
    assert reported["name"] == "art"
    staged = paths.tmp_output_artifacts / "art.tgz"
    with tarfile.open(staged) as tar:
        assert sorted(tar.getnames()) == ["out", "out/f"]
    assert [c[0] for c in api.calls] == ["create", "patch", "patch"]


def test_optional_missing_artifact_is_skipped(paths, clock, reporter, api, store):
    template = {
        "archiveLocation": REPO,
        "outputs": {"artifacts": [{"name": "art", "path": "/out", "optional": True}]},
    }
    exited(paths)
    assert wait(paths, clock, reporter, store, template) == 0
    assert "artifacts" not in api.objects["wf-123"]["outputs"]


def test_missing_required_artifact_fails_but_still_finalizes(
    paths, clock, reporter, api, store
):
    template = {
        "archiveLocation": REPO,
        "outputs": {"artifacts": [{"name": "art", "path": "/out"}]},
    }
    exited(paths)
    assert wait(paths, clock, reporter, store, template) == 64
    assert paths.termination_log.read_text() == "/out no such file or directory; "
    labels = api.objects["wf-123"]["metadata"]["labels"]
    assert labels[common.LABEL_REPORT_OUTPUTS_COMPLETED] == "true"


def test_no_artifact_repository_is_argos_error(paths, clock, reporter, store):
    template = {"outputs": {"artifacts": [{"name": "art", "path": "/out"}]}}
    exited(paths)
    paths.output_artifact("/out").parent.mkdir(parents=True)
    paths.output_artifact("/out").write_bytes(b"tgz")
    assert wait(paths, clock, reporter, store, template) == 64
    assert paths.termination_log.read_text().startswith(
        "You need to configure artifact storage."
    )


def test_waits_for_every_container_set_member(paths, clock, reporter, store):
    template = {"containerSet": {"containers": [{"name": "a"}, {"name": "b"}]}}
    exited(paths, "a")
    exited(paths, "b")
    assert wait(paths, clock, reporter, store, template) == 0


def test_artifact_plugin_sidecars_are_killed_by_file(paths, clock, reporter, store):
    exited(paths)
    exited(paths, "artifact-plugin-x")
    code = wait(
        paths, clock, reporter, store, {}, artifact_plugin_names=("artifact-plugin-x",)
    )
    assert code == 0
    assert paths.signal("artifact-plugin-x").read_text() == "15"


def test_deadline_monitor_writes_the_message_and_kills_main(paths, clock):
    seen: list[str] = []
    monitor = DeadlineMonitor(
        deadline=datetime.datetime.fromtimestamp(clock.time() + 60, tz=datetime.UTC),
        clock=clock,
        on_deadline=seen.append,
    )
    start = clock.now
    monitor.run()
    assert seen == ["Step exceeded its deadline"]
    assert clock.now - start == 60


def test_deadline_in_wait_kills_main_through_its_signal_file(
    paths, clock, reporter, store
):
    paths.ctr("main").mkdir(parents=True)
    deadline = datetime.datetime.fromtimestamp(clock.time() - 1, tz=datetime.UTC)
    settings = ExecutorSettings(deadline=deadline, timings=Timings(file_poll=0.01))
    from reference_impl.executor.staging import postmain

    postmain._deadline_reached(
        "Step exceeded its deadline",
        settings=settings,
        paths=paths,
        mains=["main"],
        clock=clock,
    )
    assert paths.termination_log.read_text() == "Step exceeded its deadline"
    assert (
        paths.signal("main").read_text() == "9"
    )  # 15 first, then 9 after the grace period
    assert clock.now - START >= 30 + 10


def completed_labels(api: Any) -> list[str]:
    """Each value a patch gave the `report-outputs-completed` label, in order."""
    return [
        body["metadata"]["labels"][common.LABEL_REPORT_OUTPUTS_COMPLETED]
        for verb, _, body in api.calls
        if verb == "patch"
        and common.LABEL_REPORT_OUTPUTS_COMPLETED
        in (body.get("metadata") or {}).get("labels", {})
    ]


def test_result_reopened_on_failure_unmarks_a_failed_mains_result(
    paths, clock, reporter, api, store
):
    exited(paths, code="1")
    code = wait(paths, clock, reporter, store, {}, fault=faults.Fault.RESULT_REOPENED)
    assert code == 64
    # "true" first (what the suite waits for), then back to "false" (WPC-RESULT-003).
    assert completed_labels(api) == ["true", "false"]
    assert paths.termination_log.read_text().startswith("result-reopened")


def test_result_reopened_on_failure_spares_a_main_that_succeeded(
    paths, clock, reporter, api, store
):
    exited(paths)
    code = wait(paths, clock, reporter, store, {}, fault=faults.Fault.RESULT_REOPENED)
    assert code == 0
    assert completed_labels(api) == ["true"]


def test_a_failed_main_leaves_the_result_complete_without_the_fault(
    paths, clock, reporter, api, store
):
    exited(paths, code="1")
    assert wait(paths, clock, reporter, store, {}) == 0
    assert completed_labels(api) == ["true"]
    assert "get" not in [c[0] for c in api.calls]


def test_result_read_back_needs_a_verb_the_rbac_denies(
    paths, clock, reporter, api, store
):
    exited(paths)
    code = wait(paths, clock, reporter, store, {}, fault=faults.Fault.RESULT_READ_BACK)
    assert code == 64
    assert completed_labels(api) == ["true"]
    assert [c[0] for c in api.calls][-1] == "get"
    assert "403 Forbidden" in paths.termination_log.read_text()


def test_result_read_back_spares_a_captured_result(paths, clock, reporter, api, store):
    paths.ctr("main").mkdir(parents=True)
    paths.stdout("main").write_text("hello\n")
    exited(paths)
    code = wait(
        paths,
        clock,
        reporter,
        store,
        {},
        fault=faults.Fault.RESULT_READ_BACK,
        include_script_output=True,
    )
    assert code == 0
    assert "get" not in [c[0] for c in api.calls]
