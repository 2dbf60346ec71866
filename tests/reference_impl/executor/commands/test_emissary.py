"""We test these aspects of `argoexec emissary` (contract 1.5, 2.3), with real children:

exit codes (the child's passed through, 137 when signalled, 64 with a
termination message when the command is not on PATH, 65 on a pre-main failure,
1 under the `exit-1-not-65` fault), the exitcode file (always written, except
under `no-exitcode-file`), the started marker directory, stdout/combined
capture, main's output staging (parameters copied, artifacts tarred, only for
main), init-less input linking after READY, and the child's environment.
"""

from __future__ import annotations

import dataclasses
import os
import tarfile
import time
from typing import Any

import pytest

from reference_impl.executor.clocks import SystemClock
from reference_impl.executor.commands.emissary import look_path
from reference_impl.executor.commands.emissary import run_emissary
from reference_impl.executor.errors import CommandNotFound
from reference_impl.executor.faults import Fault
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.settings import Timings
from tests.reference_impl.executor.conftest import FakeClock

PATH = "/usr/local/bin:/usr/bin:/bin"


BASE = ExecutorSettings(
    container_name="main",
    template_env="{}",
    child_env={"PATH": PATH},
    timings=Timings(file_poll=0.01),
)


def emissary(paths: Paths, clock: FakeClock, argv: list[str], **overrides: Any) -> int:
    return run_emissary(
        settings=dataclasses.replace(BASE, **overrides),
        paths=paths,
        argv=argv,
        workdir=str(paths.root),
        clock=clock,
    )


def termination_message(paths: Paths) -> str:
    return paths.termination_log.read_text()


def test_child_exit_code_is_passed_through_and_recorded(paths, clock):
    assert emissary(paths, clock, ["sh", "-c", "exit 3"]) == 3
    assert paths.exitcode("main").read_text() == "3"
    assert paths.ctr("main").stat().st_mode & 0o777 == 0o777
    assert paths.ctr("main").parent.stat().st_mode & 0o777 == 0o777


def test_success_writes_zero(paths, clock):
    assert emissary(paths, clock, ["true"]) == 0
    assert paths.exitcode("main").read_text() == "0"


def test_a_signalled_child_counts_as_128_plus_the_signal(paths, clock):
    assert emissary(paths, clock, ["sh", "-c", "kill -TERM $$"]) == 143
    assert paths.exitcode("main").read_text() == "143"


def test_command_not_on_path_exits_64_with_a_termination_message(paths, clock):
    assert emissary(paths, clock, ["no-such-command-wpc"]) == 64
    assert paths.exitcode("main").read_text() == "64"
    assert termination_message(paths) == (
        'failed to find name in PATH: exec: "no-such-command-wpc": '
        "executable file not found in $PATH"
    )


def test_look_path_resolves_like_go(tmp_path):
    assert look_path("sh", path=PATH, workdir=str(tmp_path)).endswith("/sh")
    with pytest.raises(
        CommandNotFound, match=r'exec: "/nope": stat /nope: no such file'
    ):
        look_path("/nope", path=PATH, workdir=str(tmp_path))


def test_pre_main_failure_exits_65(paths, clock):
    markers.write_status(
        path=paths.status,
        tmp_path=paths.status_tmp,
        body=markers.encode("FAILED", "boom"),
    )
    assert emissary(paths, clock, ["true"], wait_for_ready=True) == 65
    assert paths.exitcode("main").read_text() == "65"
    assert termination_message(paths) == "supervisor reported pre-main failure: boom"


def test_dead_supervisor_exits_65(paths, clock):
    assert emissary(paths, clock, ["true"], wait_for_ready=True) == 65
    assert termination_message(paths) == (
        "supervisor presumed dead: status marker never appeared within 30s"
    )


def test_exit_1_not_65_fault_exits_1(paths, clock):
    markers.write_status(
        path=paths.status, tmp_path=paths.status_tmp, body=markers.encode("FAILED", "x")
    )
    code = emissary(
        paths, clock, ["true"], wait_for_ready=True, fault=Fault.EXIT_1_NOT_65
    )
    assert code == 1
    assert paths.exitcode("main").read_text() == "1"


def test_no_exitcode_file_fault_writes_none(paths, clock):
    assert emissary(paths, clock, ["true"], fault=Fault.NO_EXITCODE_FILE) == 0
    assert paths.ctr("main").is_dir()
    assert not paths.exitcode("main").exists()


def test_output_is_captured_when_the_result_is_wanted(paths, clock):
    code = emissary(
        paths, clock, ["sh", "-c", "echo out; echo err >&2"], include_script_output=True
    )
    assert code == 0
    assert paths.stdout("main").read_text() == "out\n"
    assert sorted(paths.combined("main").read_text().splitlines()) == ["err", "out"]


def test_output_is_not_captured_otherwise(paths, clock):
    assert emissary(paths, clock, ["echo", "hi"]) == 0
    assert not paths.stdout("main").exists()


def test_the_child_gets_the_user_environment_only(paths, clock):
    out = paths.root / "env.txt"
    env = {"PATH": PATH, "FOO": "bar"}
    assert emissary(paths, clock, ["sh", "-c", f"env > {out}"], child_env=env) == 0
    lines = set(out.read_text().splitlines())
    assert "FOO=bar" in lines
    assert not any(line.startswith(("STATICX_", "_PYI_", "ARGO_")) for line in lines)


def output_template(paths: Paths) -> dict[str, Any]:
    return {
        "outputs": {
            "parameters": [
                {"name": "p", "valueFrom": {"path": str(paths.root / "tmp/p.txt")}}
            ],
            "artifacts": [{"name": "a", "path": str(paths.root / "tmp/dir")}],
        }
    }


def test_main_stages_its_outputs(paths, clock):
    import json

    template = output_template(paths)
    # The template uses in-container paths; this fake root maps them below paths.root.
    template["outputs"]["parameters"][0]["valueFrom"]["path"] = "/tmp/p.txt"
    template["outputs"]["artifacts"][0]["path"] = "/tmp/dir"
    script = f"mkdir -p {paths.root}/tmp/dir && echo v > {paths.root}/tmp/p.txt && echo f > {paths.root}/tmp/dir/f"
    code = emissary(
        paths, clock, ["sh", "-c", script], template_env=json.dumps(template)
    )
    assert code == 0
    assert paths.output_parameter("/tmp/p.txt").read_text() == "v\n"
    with tarfile.open(paths.output_artifact("/tmp/dir")) as tar:
        assert sorted(tar.getnames()) == ["dir", "dir/f"]


def test_only_main_stages_outputs(paths, clock):
    import json

    template = {
        "outputs": {"parameters": [{"name": "p", "valueFrom": {"path": "/tmp/p.txt"}}]}
    }
    (paths.root / "tmp").mkdir()
    (paths.root / "tmp/p.txt").write_text("v")
    code = emissary(
        paths,
        clock,
        ["true"],
        container_name="sidecar",
        template_env=json.dumps(template),
    )
    assert code == 0
    assert not paths.output_parameter("/tmp/p.txt").exists()
    assert paths.exitcode("sidecar").read_text() == "0"


def test_initless_main_links_input_artifacts_after_ready(paths, clock):
    import json

    markers.write_status(
        path=paths.status, tmp_path=paths.status_tmp, body=markers.encode("READY")
    )
    paths.template.write_text(
        json.dumps({"inputs": {"artifacts": [{"name": "in", "path": "/data/in.txt"}]}})
    )
    paths.input_artifact("in").parent.mkdir(parents=True)
    paths.input_artifact("in").write_text("payload")
    out = paths.root / "seen.txt"
    code = emissary(
        paths,
        clock,
        ["sh", "-c", f"cat {paths.root}/data/in.txt > {out}"],
        wait_for_ready=True,
    )
    assert code == 0
    assert out.read_text() == "payload"
    assert os.readlink(paths.at("/data/in.txt")) == str(paths.input_artifact("in"))


def test_a_template_sidecar_kills_itself_once_main_has_exited(paths):
    paths.ctr("main").mkdir(parents=True)
    paths.exitcode("main").write_text("0")
    template = '{"sidecars": [{"name": "sc"}]}'
    # A real clock: the grace period is waited on the child's exit, for real.
    code = emissary(
        paths,
        SystemClock(),
        ["sleep", "30"],
        container_name="sc",
        template_env=template,
    )
    assert code == 143  # SIGTERM ended it, well within the grace period
    assert paths.exitcode("sc").read_text() == "143"


def _stubborn_sidecar(paths: Paths, grace: float, fault: Fault | None) -> float:
    """Run a sidecar whose command ignores SIGTERM; seconds until it was killed (137)."""
    paths.ctr("main").mkdir(parents=True)
    template = '{"sidecars": [{"name": "sc"}]}'
    # The child "completes main" itself once its trap is set, so the SIGTERM
    # cannot arrive before the trap does.
    script = f"trap '' TERM; echo 0 > {paths.exitcode('main')}; exec sleep 30"
    started = time.monotonic()
    code = emissary(
        paths,
        SystemClock(),
        ["sh", "-c", script],
        container_name="sc",
        template_env=template,
        grace_seconds=grace,
        fault=fault,
    )
    assert code == 137
    return time.monotonic() - started


def test_a_sidecar_ignoring_sigterm_is_killed_no_earlier_than_the_grace_period(paths):
    assert _stubborn_sidecar(paths, 1.0, None) >= 1.0


def test_sidecar_sigkill_early_kills_a_stubborn_sidecar_before_the_grace_period(paths):
    # The negative control for WPC-KILL-003: SIGKILL after half the grace period.
    assert 2.0 <= _stubborn_sidecar(paths, 4.0, Fault.SIDECAR_SIGKILL_EARLY) < 4.0


def test_container_set_member_waits_for_its_dependencies(paths, clock):
    template = '{"containerSet": {"containers": [{"name": "a"}, {"name": "b", "dependencies": ["a"]}]}}'
    paths.ctr("a").mkdir(parents=True)
    paths.exitcode("a").write_text("0")
    assert (
        emissary(paths, clock, ["true"], container_name="b", template_env=template) == 0
    )


def test_a_failed_dependency_is_an_emissary_error(paths, clock):
    template = '{"containerSet": {"containers": [{"name": "a"}, {"name": "b", "dependencies": ["a"]}]}}'
    paths.ctr("a").mkdir(parents=True)
    paths.exitcode("a").write_text("2")
    assert (
        emissary(paths, clock, ["true"], container_name="b", template_env=template)
        == 64
    )
    assert termination_message(paths) == 'dependency "a" exited with non-zero code: 2'


def test_a_command_that_cannot_start_exits_64(paths, clock):
    bogus = paths.root / "not-an-executable-format"
    bogus.write_bytes(b"\x00\x01\x02")
    bogus.chmod(0o755)
    assert emissary(paths, clock, [str(bogus)]) == 64
    assert termination_message(paths).startswith("failed to start command: ")
    assert paths.exitcode("main").read_text() == "64"


def slow_supervisor(paths: Paths, clock: FakeClock, ready_after: float) -> Any:
    """A pause that heartbeats RUNNING (fresh mtimes) and writes READY after `ready_after` s."""
    start = clock.now

    def pause(seconds: float) -> None:
        clock.now += seconds
        token = "READY" if clock.now - start >= ready_after else "RUNNING"
        markers.write_status(
            path=paths.status, tmp_path=paths.status_tmp, body=markers.encode(token)
        )
        os.utime(paths.status, (clock.now, clock.now))

    pause(0.0)
    return pause


@pytest.mark.parametrize(
    ("fault", "ready_after", "code"),
    [
        (None, 40.0, 0),  # a long pre-main with a live heartbeat is fine
        (Fault.LATE_GIVE_UP, 40.0, 65),  # WPC-HANDSHAKE-009 broken
        (Fault.LATE_GIVE_UP, 10.0, 0),  # a fast pre-main is spared
    ],
)
def test_late_give_up_fails_main_after_a_long_pre_main(paths, fault, ready_after, code):
    clock = FakeClock(start=time.time())
    out = paths.root / "ran"
    result = run_emissary(
        settings=dataclasses.replace(BASE, wait_for_ready=True, fault=fault),
        paths=paths,
        argv=["sh", "-c", f"touch {out}"],
        workdir=str(paths.root),
        clock=clock,
        pause=slow_supervisor(paths, clock, ready_after),
    )
    assert result == code
    assert out.exists()  # the command ran either way
    assert paths.exitcode("main").read_text() == str(code)
    if code == 65:
        assert termination_message(paths) == (
            "supervisor presumed dead: READY came after 40s, more than 30s"
        )
