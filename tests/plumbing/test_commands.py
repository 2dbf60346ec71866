"""We test these aspects of the one subprocess runner, with real processes:

- run() appends the command line and its output to the log file;
- a non-zero exit raises CommandFailed with the command line, exit code, last
  lines and log path; a command that cannot start reports exit code 127;
- capture() returns stdout, and its failure carries the output;
- a package's subclass is what is raised when asked;
- a long step that is no single command says it is still running, and stops saying
  so when it ends.
"""

from __future__ import annotations

import sys
import threading

import pytest

from plumbing import commands
from plumbing.errors import CommandFailed


def test_run_appends_the_command_and_its_output_to_the_log(tmp_path):
    log = tmp_path / "logs" / "x.log"
    commands.run([sys.executable, "-c", "print('hello')"], log_path=log)
    commands.run([sys.executable, "-c", "print('again')"], log_path=log)
    text = log.read_text()
    assert "$ " in text
    assert "hello" in text
    assert "again" in text


def test_a_failing_command_carries_its_evidence(tmp_path):
    log = tmp_path / "x.log"
    argv = [sys.executable, "-c", "import sys; print('the last words'); sys.exit(3)"]
    with pytest.raises(CommandFailed) as info:
        commands.run(argv, log_path=log)
    err = info.value
    assert err.returncode == 3
    assert err.log_path == log
    assert "command failed with exit code 3" in str(err)
    assert f"log file: {log}" in str(err)
    assert "the last words" in str(err)


def test_a_command_that_cannot_start_is_exit_code_127(tmp_path):
    with pytest.raises(CommandFailed) as info:
        commands.run(["/nonexistent/wpc-no-such-tool"], log_path=tmp_path / "x.log")
    assert info.value.returncode == 127
    assert "cannot start" in info.value.output
    with pytest.raises(CommandFailed) as info2:
        commands.capture(["/nonexistent/wpc-no-such-tool"])
    assert info2.value.returncode == 127


def test_capture_returns_stdout_and_its_failure_carries_the_output():
    assert commands.capture([sys.executable, "-c", "print('out')"]) == "out\n"
    assert (
        commands.capture(
            [sys.executable, "-c", "import sys; print(sys.stdin.read())"], stdin="in"
        )
        == "in\n"
    )
    with pytest.raises(CommandFailed, match="to stderr"):
        commands.capture(
            [
                sys.executable,
                "-c",
                "import sys; sys.stderr.write('to stderr'); sys.exit(1)",
            ]
        )


def test_the_error_is_the_subclass_a_package_asks_for(tmp_path):
    class PackageError(CommandFailed):
        pass

    with pytest.raises(PackageError):
        commands.capture(
            [sys.executable, "-c", "raise SystemExit(2)"], error=PackageError
        )
    with pytest.raises(PackageError):
        commands.run(
            [sys.executable, "-c", "raise SystemExit(2)"],
            log_path=tmp_path / "x.log",
            error=PackageError,
        )


def test_attempt_returns_the_result_whatever_the_exit_code():
    done = commands.attempt(
        [sys.executable, "-c", "import sys; print('x'); sys.exit(4)"]
    )
    assert (done.returncode, done.stdout) == (4, "x\n")
    missing = commands.attempt(["/nonexistent/wpc-no-such-tool"])
    assert missing.returncode == 127
    assert "cannot start" in missing.stderr


def test_a_command_that_outlives_its_timeout_is_exit_code_minus_one(tmp_path):
    # The child must outlive its timeout: that is what is under test.
    child = "import time; print('started', flush=True); time.sleep(30)"  # noqa: sleep-ok
    argv = [sys.executable, "-c", child]
    with pytest.raises(CommandFailed) as info:
        commands.capture(argv, timeout=1)
    assert info.value.returncode == -1
    assert "still running after 1 s" in str(info.value)
    log = tmp_path / "x.log"
    with pytest.raises(CommandFailed) as info2:
        commands.run(argv, log_path=log, timeout=1)
    assert info2.value.returncode == -1
    assert "started" in log.read_text()


def test_a_long_command_says_it_is_still_running(tmp_path, caplog):
    # The child takes the time; the runner only waits on it with a short heartbeat.
    child = "import time; print('compiling k8s', flush=True); time.sleep(0.5)"  # noqa: sleep-ok - the child must outlive the heartbeat
    argv = [sys.executable, "-c", child]
    with caplog.at_level("INFO", logger="plumbing.commands"):
        commands.run(argv, log_path=tmp_path / "x.log", heartbeat=0.1)
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.getMessage().startswith("Still running")
    ]
    assert lines
    assert "after 0s: " in lines[0]
    assert any("compiling k8s" in line for line in lines)


def test_elapsed_reads_as_minutes_and_seconds():
    assert commands.elapsed(42.7) == "42s"
    assert commands.elapsed(65) == "1m05s"


def test_a_long_step_says_it_is_still_running_and_stops_saying_so(caplog):
    step_ran = threading.Event()
    with caplog.at_level("INFO", logger="plumbing.commands"):
        with commands.heartbeat("in step CoreDNS", every=0.05):
            step_ran.wait(0.3)  # the step takes the time; nothing sets the event
        said = len(caplog.records)
        step_ran.wait(0.15)  # after the block: no more lines
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == said >= 2
    assert lines[0] == "Still in step CoreDNS after 0s."
