"""We test these aspects of the `argoexec` command line:

`kill SIG PID` prints `killing <pid> with <sig>` and signals; `emissary` takes
Argo's log options and everything after `--` as the command (options included)
and exits with the child's code; extra unknown options (config
`executor.args`) are tolerated.
"""

from __future__ import annotations

import io
import os
import signal
from collections.abc import Iterator

import pytest

from reference_impl.executor import cli
from reference_impl.executor.files import killing
from reference_impl.executor.protocol import make_ctr_dir


@pytest.fixture(autouse=True)
def _handlers_put_back() -> Iterator[None]:
    """The emissary run in-process installs its signal forwarder for good, as PID 1
    of a container would; the test process gets its own handlers back."""
    saved = {s: signal.getsignal(s) for s in signal.valid_signals()}
    yield
    for signum, handler in saved.items():
        if handler is not None and signal.getsignal(signum) != handler:
            signal.signal(signum, handler)


def test_kill_prints_and_signals(capsys):
    assert cli.main(["kill", "0", str(os.getpid())]) == 0
    assert capsys.readouterr().out == f"killing {os.getpid()} with 0\n"


def test_sigkill_for_pid_one_also_goes_to_the_emissarys_signal_file(paths):
    # Inside a container PID 1 ignores SIGKILL from its own namespace; the
    # emissary's signal file is the way that works. (Never really signal PID 1
    # here: on the test machine it is the machine's init.)
    make_ctr_dir(paths, "main")
    sent: list[tuple[int, int]] = []
    out = io.StringIO()
    killing.kill_process(
        signal_number=9,
        pid=1,
        out=out,
        paths=paths,
        container="main",
        send=lambda pid, sig: sent.append((pid, sig)),
    )
    assert sent == [(1, 9)]
    assert out.getvalue() == "killing 1 with 9\n"
    assert paths.signal("main").read_text() == "9"


def test_sigterm_or_other_pids_leave_the_signal_file_alone(paths):
    make_ctr_dir(paths, "main")
    for signal_number, pid in ((15, 1), (9, 42)):
        killing.kill_process(
            signal_number=signal_number,
            pid=pid,
            out=io.StringIO(),
            paths=paths,
            container="main",
            send=lambda _pid, _sig: None,
        )
    assert not paths.signal("main").exists()


def test_a_container_without_an_emissary_gets_no_signal_file(paths):
    killing.kill_process(
        signal_number=9,
        pid=1,
        out=io.StringIO(),
        paths=paths,
        container="wait",
        send=lambda _pid, _sig: None,
    )
    assert not paths.ctr("wait").exists()


def test_emissary_runs_the_command_after_the_separator(monkeypatch, paths):
    monkeypatch.setenv("ARGO_CONTAINER_NAME", "main")
    monkeypatch.setenv("ARGO_TEMPLATE", "{}")
    argv = [
        "emissary",
        "--loglevel",
        "debug",
        "--log-format",
        "text",
        "--gloglevel",
        "0",
    ]
    code = cli.main([*argv, "--", "sh", "-c", "exit 5"], root=paths.root)
    assert code == 5
    assert paths.exitcode("main").read_text() == "5"


def test_unknown_extra_options_are_tolerated(monkeypatch, paths):
    monkeypatch.setenv("ARGO_TEMPLATE", "{}")
    code = cli.main(["emissary", "--extra-flag", "--", "true"], root=paths.root)
    assert code == 0
