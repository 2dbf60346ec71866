"""We test these aspects of the executor-side faults of commission (`commission` rows
with `taskResult`, `exit`, `signals` or `messages` hooks), on the executor's own code:

- each such row is read into `ExecutorSettings.commission` (and is no enum fault);
  no fault means no commission; every executor row has a test here;
- `taskResult`: the task result a Reporter writes differs from the correct one in
  exactly the field the row names (owner, parameter values, result);
- `exit`: the emissary exits (and writes to its exitcode file) the row's code for a
  signalled command, and nothing else changes; the supervisor's mapping is its own;
- `signals`: a caught SIGTERM is forwarded, a sidecar stops itself, and
  `argoexec kill 15` signals, with SIGINT under the row, with SIGTERM without it;
- `messages`: the status marker's READY body, a pre-main cause, the command-lookup
  termination message and main's two `supervisor presumed dead` messages (no marker,
  a stale one) are rewritten as named, and other texts are left alone; an init-less
  input artifact's link points at `<name>.tmp`;
- `files`: the emissary leaves ctr/<c>/ 0755, drops stdout's last newline (not
  combined's), alters main's parameter copy (not the original), overwrites the
  termination message main's command wrote (not another container's, not an empty
  one); the template is written 0600; a file input artifact gets a line more (an
  unpacked directory is left alone); without the row each is as the contract says.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
from typing import Any

import pytest

from reference_impl import commission
from reference_impl.executor import cli
from reference_impl.executor import faults
from reference_impl.executor.api import taskresults
from reference_impl.executor.child import children
from reference_impl.executor.child import linking
from reference_impl.executor.clocks import SystemClock
from reference_impl.executor.commands import supervising
from reference_impl.executor.commands.emissary import run_emissary
from reference_impl.executor.files import commissioned
from reference_impl.executor.files import exits
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.settings import Timings
from reference_impl.executor.staging import loading
from reference_impl.executor.staging import premain
from reference_impl.executor.storage import archives
from reference_impl.executor.templates import Template
from tests.reference_impl.executor.conftest import FakeApi
from tests.reference_impl.executor.conftest import FakeClock

Json = dict[str, Any]
TABLE = commission.load()
EXECUTOR_ROWS = sorted(n for n, f in TABLE.items() if f.side == commission.EXECUTOR)
TESTED = {
    "result-no-owner",
    "result-param-altered",
    "result-keeps-newline",
    "signal-exit-unshifted",
    "supervisor-exits-one",
    "forward-term-as-int",
    "sidecar-stop-sigint",
    "kill-command-sigint",
    "ready-marker-spaced",
    "cause-unprefixed",
    "path-lookup-wording",
    "marker-absent-wording",
    "marker-stale-wording",
    "ctr-dir-mode-755",
    "stdout-newline-dropped",
    "param-copy-altered",
    "termination-overwritten",
    "template-owner-only",
    "artifact-line-appended",
    "artifact-link-tmp",
    "initless-template-0600",
    "output-artifact-altered",
}
BASE = ExecutorSettings(
    container_name="main",
    template_env="{}",
    child_env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
    timings=Timings(file_poll=0.01),
)


def emissary(
    paths: Paths,
    argv: list[str],
    fault: str = "",
    clock: SystemClock | FakeClock | None = None,
    **overrides: Any,
) -> int:
    settings = dataclasses.replace(
        BASE, commission=faults.commission_fault(fault), **overrides
    )
    return run_emissary(
        settings=settings,
        paths=paths,
        argv=argv,
        workdir=str(paths.root),
        clock=clock or SystemClock(),
    )


def test_every_executor_row_is_tested_here():
    assert sorted(TESTED) == EXECUTOR_ROWS


@pytest.mark.parametrize("name", EXECUTOR_ROWS)
def test_an_executor_row_becomes_the_settings_commission(name):
    parsed = ExecutorSettings.from_env({"WPC_REFERENCE_FAULT": name})
    assert (parsed.fault, parsed.commission) == (None, TABLE[name])


def test_no_fault_and_controller_rows_mean_no_executor_commission():
    assert ExecutorSettings.from_env({}).commission is None
    assert faults.commission_fault("default-container-aux") is None
    assert faults.commission_fault(None) is None


# -- taskResult ----------------------------------------------------------------------------


def reported(fault: str) -> Json:
    api = FakeApi()
    reporter = taskresults.Reporter(
        api=api,
        identity=taskresults.Identity(
            namespace="ns", node_id="wf-1", workflow_name="wf", workflow_uid="u"
        ),
        clock=FakeClock(),
        fault=faults.commission_fault(fault),
    )
    outputs = {"parameters": [{"name": "p", "value": "v"}], "result": "hello"}
    reporter.upsert({"outputs": outputs})
    reporter.upsert({"outputs": outputs, "progress": "1/1"})
    reporter.finalize()
    return api.objects["wf-1"]


@pytest.mark.parametrize(
    ("name", "path", "value"),
    [
        ("result-no-owner", ("metadata", "ownerReferences"), None),
        (
            "result-param-altered",
            ("outputs", "parameters"),
            [{"name": "p", "value": "v-altered"}],
        ),
        ("result-keeps-newline", ("outputs", "result"), "hello\n"),
    ],
)
def test_a_task_result_row_changes_exactly_its_field(name, path, value):
    correct, faulty = reported(""), reported(name)
    holder_c, holder_f = correct, faulty
    for key in path[:-1]:
        holder_c, holder_f = holder_c[key], holder_f[key]
    assert holder_f.get(path[-1]) == value
    assert holder_c.get(path[-1]) != value
    holder_c.pop(path[-1])
    holder_f.pop(path[-1], None)
    assert faulty == correct


# -- exit ----------------------------------------------------------------------------------


def test_signal_exit_unshifted_exits_the_signal_number(paths):
    argv = ["sh", "-c", "kill -TERM $$"]
    assert emissary(paths, argv) == 143
    assert emissary(paths, argv, "signal-exit-unshifted") == 15
    assert paths.exitcode("main").read_text() == "15"
    assert emissary(paths, ["sh", "-c", "exit 3"], "signal-exit-unshifted") == 3


def test_supervisor_exits_one_only_for_the_supervisor():
    fault = faults.commission_fault("supervisor-exits-one")
    assert commission.exit_code(fault, 64, container="supervisor") == 1
    assert commission.exit_code(fault, 64, container="main") == 64
    assert commission.exit_code(fault, 0, container="supervisor") == 0
    assert commission.exit_code(None, 64, container="supervisor") == 64


# -- signals -------------------------------------------------------------------------------


def forwarded(fault: str) -> int:
    """How a `sleep` child ends when the forwarder handles a SIGTERM for it."""
    chosen = faults.commission_fault(fault)

    def translate(signum: int) -> int:
        return commission.signal_for(chosen, "forward", signum)

    forwarder = children.SignalForwarder(translate=translate)
    child = subprocess.Popen(["sleep", "30"])
    forwarder.attach(child.pid)
    forwarder._handle(signal.SIGTERM, None)
    return child.wait(timeout=10)


def test_forward_term_as_int_forwards_sigint():
    assert forwarded("") == -signal.SIGTERM
    assert forwarded("forward-term-as-int") == -signal.SIGINT
    assert forwarded("sidecar-stop-sigint") == -signal.SIGTERM


@pytest.mark.parametrize(
    ("fault", "code"),
    [("", 143), ("sidecar-stop-sigint", 130), ("forward-term-as-int", 143)],
)
def test_sidecar_stop_sigint_stops_the_sidecar_with_sigint(paths, fault, code):
    paths.ctr("main").mkdir(parents=True)
    paths.exitcode("main").write_text("0")
    argv = ["sleep", "30"]
    template = '{"sidecars": [{"name": "sc"}]}'
    assert (
        emissary(paths, argv, fault, container_name="sc", template_env=template) == code
    )


@pytest.mark.parametrize(
    ("fault", "ended"),
    [("", -signal.SIGTERM), ("kill-command-sigint", -signal.SIGINT)],
)
def test_kill_command_sigint_sends_sigint(tmp_path, monkeypatch, fault, ended):
    monkeypatch.setenv("WPC_REFERENCE_FAULT", fault)
    monkeypatch.delenv("ARGO_CONTAINER_NAME", raising=False)
    child = subprocess.Popen(["sleep", "30"])
    assert cli.main(["kill", "15", str(child.pid)], root=tmp_path) == 0
    assert child.wait(timeout=10) == ended


def test_kill_command_sigint_leaves_other_signals():
    fault = faults.commission_fault("kill-command-sigint")
    assert commission.signal_for(fault, "kill", 9) == 9
    assert commission.signal_for(fault, "forward", 15) == 15


# -- messages ------------------------------------------------------------------------------


def test_ready_marker_spaced_writes_a_space_before_the_newline(paths):
    fault = faults.commission_fault("ready-marker-spaced")
    marker = supervising._Marker(paths=paths, atomic=True, fault=fault)
    marker.write(markers.RUNNING)
    assert paths.status.read_bytes() == b"RUNNING\n"
    marker.write(markers.READY)
    assert paths.status.read_bytes() == b"READY \n"
    assert markers.parse(paths.status.read_bytes()) == (markers.READY, "")
    supervising._Marker(paths=paths, atomic=True).write(markers.READY)
    assert paths.status.read_bytes() == b"READY\n"


def test_cause_unprefixed_drops_the_failing_step_from_marker_and_message(paths):
    fault = faults.commission_fault("cause-unprefixed")
    cause = "failed to load non-plugin input artifacts: 404 for in"
    supervising._Marker(paths=paths, atomic=True, fault=fault).write(
        markers.FAILED, cause
    )
    assert paths.status.read_bytes() == b"FAILED\n404 for in"
    exits.write_termination_message(paths=paths, message=cause, fault=fault)
    assert paths.termination_log.read_text() == "404 for in"
    other = "failed to write template: disk full"
    exits.write_termination_message(paths=paths, message=other, fault=fault)
    assert paths.termination_log.read_text() == other


def test_path_lookup_wording_rewrites_only_the_lookup_message(paths):
    assert emissary(paths, ["no-such-command-wpc"], "path-lookup-wording") == 64
    assert paths.termination_log.read_text() == (
        'command not found in PATH: exec: "no-such-command-wpc": '
        "executable file not found in $PATH"
    )
    assert emissary(paths, ["no-such-command-wpc"]) == 64
    assert paths.termination_log.read_text().startswith("failed to find name in PATH: ")


NEVER_APPEARED = "supervisor presumed dead: status marker never appeared within 30s"
NO_UPDATE = "supervisor presumed dead: no status update within 30s"


def presumed_dead(paths: Paths, fault: str, *, stale: bool) -> str:
    """main's termination message when the supervisor never wrote, or went quiet."""
    clock = FakeClock()
    if stale:
        markers.write_status(
            path=paths.status,
            tmp_path=paths.status_tmp,
            body=markers.encode(markers.RUNNING, ""),
        )
        os.utime(paths.status, (clock.now, clock.now))
    else:
        paths.status.unlink(missing_ok=True)
    code = emissary(paths, ["true"], fault, clock=clock, wait_for_ready=True)
    assert code == 65
    return paths.termination_log.read_text()


@pytest.mark.parametrize(
    ("fault", "never", "quiet"),
    [
        ("", NEVER_APPEARED, NO_UPDATE),
        (
            "marker-absent-wording",
            "supervisor presumed dead: no status marker after 30s",
            NO_UPDATE,
        ),
        (
            "marker-stale-wording",
            NEVER_APPEARED,
            "supervisor presumed dead: status marker stale for 30s",
        ),
    ],
)
def test_marker_wording_rows_rewrite_only_their_presumed_dead_message(
    paths, fault, never, quiet
):
    assert presumed_dead(paths, fault, stale=False) == never
    assert presumed_dead(paths, fault, stale=True) == quiet
    assert paths.exitcode("main").read_text() == "65"


@pytest.mark.parametrize(("fault", "suffix"), [("", ""), ("artifact-link-tmp", ".tmp")])
def test_artifact_link_tmp_links_the_path_to_the_tmp_name(paths, fault, suffix):
    paths.input_artifact("a").parent.mkdir(parents=True)
    paths.input_artifact("a").write_text("payload")
    raw = {"inputs": {"artifacts": [{"name": "a", "path": "/deep/a"}]}}
    linking.link_input_artifacts(
        template=Template(raw=raw), paths=paths, fault=faults.commission_fault(fault)
    )
    target = os.readlink(paths.at("/deep/a"))
    assert target == str(paths.input_artifact("a")) + suffix


# -- files ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "mode"), [("", 0o777), ("ctr-dir-mode-755", 0o755)])
def test_ctr_dir_mode_755_leaves_the_ctr_directory_0755(paths, fault, mode):
    assert emissary(paths, ["true"], fault) == 0
    assert paths.ctr("main").stat().st_mode & 0o7777 == mode
    assert paths.ctr("main").parent.stat().st_mode & 0o7777 == 0o777


@pytest.mark.parametrize(
    ("fault", "stdout"), [("", "out\n"), ("stdout-newline-dropped", "out")]
)
def test_stdout_newline_dropped_changes_stdout_only(paths, fault, stdout):
    argv = ["sh", "-c", "echo out; echo err >&2"]
    assert emissary(paths, argv, fault, include_script_output=True) == 0
    assert paths.stdout("main").read_text() == stdout
    assert sorted(paths.combined("main").read_text().splitlines(True)) == [
        "err\n",
        "out\n",
    ]


PARAM_TEMPLATE = (
    '{"outputs": {"parameters": [{"name": "p", "valueFrom": {"path": "/tmp/p.txt"}}]}}'
)


@pytest.mark.parametrize(
    ("fault", "copy"), [("", "v"), ("param-copy-altered", "v-altered")]
)
def test_param_copy_altered_alters_main_s_copy_only(paths, fault, copy):
    (paths.root / "tmp").mkdir()
    argv = ["sh", "-c", f"printf v > {paths.at('/tmp/p.txt')}"]
    assert emissary(paths, argv, fault, template_env=PARAM_TEMPLATE) == 0
    assert paths.output_parameter("/tmp/p.txt").read_text() == copy
    assert paths.at("/tmp/p.txt").read_text() == "v"


@pytest.mark.parametrize(
    ("fault", "container", "written", "left"),
    [
        ("", "main", "custom reason", "custom reason"),
        ("termination-overwritten", "main", "custom reason", "command exited"),
        ("termination-overwritten", "side", "custom reason", "custom reason"),
        ("termination-overwritten", "main", "", ""),
    ],
)
def test_termination_overwritten_overwrites_main_s_own_message(
    paths, fault, container, written, left
):
    log = paths.termination_log
    argv = ["sh", "-c", f"printf '{written}' > {log}; exit 3"]
    assert emissary(paths, argv, fault, container_name=container) == 3
    assert log.read_text() == left
    assert paths.exitcode(container).read_text() == "3"


@pytest.mark.parametrize(
    ("fault", "mode"), [("", 0o444), ("template-owner-only", 0o600)]
)
def test_template_owner_only_writes_the_template_0600(paths, fault, mode):
    premain.write_template(
        template=Template(raw={"name": "t"}),
        paths=paths,
        fault=faults.commission_fault(fault),
        container="init",
    )
    assert paths.template.stat().st_mode & 0o7777 == mode
    assert paths.template.read_text() == '{"name": "t"}'


@pytest.mark.parametrize(
    ("fault", "content"),
    [("", "hello\n"), ("artifact-line-appended", "hello\naltered\n")],
)
def test_artifact_line_appended_changes_a_file_artifact(paths, fault, content):
    art = {"name": "f", "path": "/in/f.txt", "raw": {"data": "hello\n"}}
    loading.load_all(
        template=Template(raw={"inputs": {"artifacts": [art]}}),
        paths=paths,
        stores_for=lambda location: pytest.fail(f"no store needed: {location}"),
        fault=faults.commission_fault(fault),
        container="init",
    )
    assert paths.input_artifact("f").read_text() == content


def test_a_directory_artifact_is_left_alone(paths):
    unpacked = paths.input_artifact("d")
    unpacked.mkdir(parents=True)
    (unpacked / "a.txt").write_text("alpha\n")
    fault = faults.commission_fault("artifact-line-appended")
    commissioned.rewrite(fault, "artifact", unpacked, container="init")
    assert (unpacked / "a.txt").read_text() == "alpha\n"


def test_the_executor_hooks_do_nothing_without_a_fault():
    body: Json = {"outputs": {"result": "x"}}
    assert commission.apply_task_result(body, None) is body
    assert commission.exit_code(None, 143, container="main") == 143
    assert commission.signal_for(None, "kill", 15) == 15
    assert commission.rewrite_text(None, "marker", "READY\n") == "READY\n"
    assert commission.file_mode(None, "ctr-dir", container="main") is None
    assert commission.rewrite_file(None, "stdout", "x\n", container="main") == "x\n"


@pytest.mark.parametrize(
    ("container", "mode"), [("supervisor", 0o600), ("init", 0o444)]
)
def test_initless_template_owner_only_changes_the_supervisors_template_only(
    paths, container, mode
):
    # WPC-INITLESS-007: main, as any user, reads the template the supervisor wrote.
    premain.write_template(
        template=Template(raw={"name": "t"}),
        paths=paths,
        fault=faults.commission_fault("initless-template-0600"),
        container=container,
    )
    assert paths.template.stat().st_mode & 0o7777 == mode


ARTIFACT_TEMPLATE = (
    '{"outputs": {"artifacts": [{"name": "data", "path": "/tmp/out/data.txt"}]}}'
)


@pytest.mark.parametrize(
    ("fault", "archived"),
    [
        ("", "one\ntwo"),
        ("output-artifact-altered", "one\ntwo\naltered"),
        ("artifact-line-appended", "one\ntwo"),  # the input-artifact role only
    ],
)
def test_output_artifact_altered_changes_the_archived_copy_only(
    paths, tmp_path, fault, archived
):
    # WPC-RESULT-008: the next step receives exactly the bytes main left.
    (paths.root / "tmp" / "out").mkdir(parents=True)
    source = paths.at("/tmp/out/data.txt")
    argv = ["sh", "-c", f"printf 'one\\ntwo' > {source}"]
    assert emissary(paths, argv, fault, template_env=ARTIFACT_TEMPLATE) == 0
    tgz = paths.output_artifact("/tmp/out/data.txt")
    archives.unpack(archive=tgz, dest=tmp_path / "unpacked")
    assert (tmp_path / "unpacked").read_bytes() == archived.encode()
    assert source.read_bytes() == b"one\ntwo"
    assert sorted(p.name for p in tgz.parent.iterdir()) == [tgz.name]
