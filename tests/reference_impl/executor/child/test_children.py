"""We test these aspects of running the child (contract 1.5 steps 4-6, 5.1):

the signal file is obeyed (a real `sleep` child is terminated, the file is
removed) and ignored under `ignore-signal-file`; signals caught before the
child exists are queued and delivered on attach; exit codes map signal N to 128 + N.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from plumbing.waiting import NotYet
from plumbing.waiting import until
from reference_impl.executor.child import children
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.settings import Timings
from tests.reference_impl.executor.conftest import FakeClock


def spec(argv: list[str]) -> children.ChildSpec:
    return children.ChildSpec(
        argv=argv, env={"PATH": "/usr/bin:/bin"}, cwd=None, capture=False
    )


def test_signal_file_terminates_a_real_child(paths, clock):
    paths.ctr("main").mkdir(parents=True)
    paths.signal("main").write_text("15")
    code = children.run(
        spec=spec(["sleep", "30"]),
        paths=paths,
        container="main",
        forwarder=children.SignalForwarder(),
        clock=clock,
        poll=0.01,
    )
    assert code == 143  # SIGTERM: 128 + 15
    assert not paths.signal("main").exists()


def test_signal_file_written_while_running_is_obeyed(paths, clock):
    paths.ctr("main").mkdir(parents=True)

    def write_signal(_pid):
        paths.signal("main").write_text("9")

    code = children.run(
        spec=spec(["sleep", "30"]),
        paths=paths,
        container="main",
        forwarder=children.SignalForwarder(),
        clock=clock,
        poll=0.01,
        on_started=write_signal,
    )
    assert code == 137


def test_ignore_signal_file_fault_leaves_the_file_alone(paths, clock):
    from reference_impl.executor.commands.emissary import run_emissary
    from reference_impl.executor.faults import Fault

    paths.ctr("main").mkdir(parents=True)
    paths.signal("main").write_text("15")
    code = run_emissary(
        settings=ExecutorSettings(
            template_env="{}",
            child_env={"PATH": "/usr/bin:/bin"},
            fault=Fault.IGNORE_SIGNAL_FILE,
            timings=Timings(file_poll=0.01),
        ),
        paths=paths,
        argv=["true"],
        workdir=str(paths.root),
        clock=clock,
    )
    assert code == 0
    assert paths.signal("main").read_text() == "15"


def test_signals_before_the_child_exists_are_queued_then_delivered():
    forwarder = children.SignalForwarder()
    forwarder._handle(signal.SIGTERM, None)
    assert forwarder.pending == [signal.SIGTERM]
    proc = subprocess.Popen(["sleep", "30"])
    try:
        forwarder.attach(proc.pid)
        assert proc.wait(timeout=5) == -signal.SIGTERM
    finally:
        proc.kill()
    assert forwarder.pending == []


def test_forwarder_installs_and_restores_handlers():
    before = signal.getsignal(signal.SIGUSR1)
    forwarder = children.SignalForwarder()
    forwarder.install()
    try:
        assert signal.getsignal(signal.SIGUSR1) == forwarder._handle
    finally:
        forwarder.restore()
    assert signal.getsignal(signal.SIGUSR1) == before


def test_signals_after_finish_are_dropped_not_forwarded_nor_fatal():
    # A late SIGTERM while the emissary writes its exitcode file must neither
    # kill it (default disposition) nor reach a reused pid. SIGUSR1 stands in
    # for SIGTERM: its default disposition also terminates the process.
    forwarder = children.SignalForwarder()
    forwarder.install()
    proc = subprocess.Popen(["sleep", "30"])
    try:
        forwarder.attach(proc.pid)
        forwarder.finish()
        os.kill(os.getpid(), signal.SIGUSR1)  # handled synchronously on return
        assert proc.poll() is None, "the signal reached the old child"
        assert forwarder.pending == []
    finally:
        forwarder.restore()
        proc.kill()
        proc.wait()


def test_exit_codes():
    assert children.exit_code_of(0) == 0
    assert children.exit_code_of(42) == 42
    assert children.exit_code_of(-15) == 143
    assert children.exit_code_of(-9) == 137
    assert signal.SIGCHLD not in children.FORWARDED
    assert signal.SIGTERM in children.FORWARDED


def test_an_empty_signal_file_is_left_for_the_writer_to_finish(paths, clock):
    import threading

    paths.ctr("main").mkdir(parents=True)
    paths.signal("main").touch()  # created, number not written yet
    proc = subprocess.Popen(["sleep", "30"])
    stop = threading.Event()
    looks = []

    class ScriptedClock(FakeClock):
        def wait(self, event, timeout):
            looks.append(paths.signal("main").exists())
            if len(looks) == 1:
                paths.signal("main").write_text("15")  # the writer finishes
            else:
                stop.set()
            return stop.is_set()

    try:
        children.watch_signal_file(
            path=paths.signal("main"),
            pid=proc.pid,
            stop=stop,
            clock=ScriptedClock(),
            poll=1.0,
        )
        assert proc.wait(timeout=5) == -signal.SIGTERM
    finally:
        proc.kill()
    assert looks == [True, False]


def _exited(pid: int) -> str | NotYet:
    """Gone or a zombie; a process still in its exit (files closed, the pipe's
    reader already at EOF, not yet a zombie) reads as running for a moment."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return "gone"
    state = stat.rsplit(")", 1)[1].split()[0]
    return "a zombie" if state == "Z" else NotYet(f"pid {pid} in state {state}")


def test_a_forwarded_signal_reaches_the_commands_background_job_too(paths, clock):
    # Upstream's emissary signals the command's process group; a shell that
    # handles SIGTERM must not leave its `sleep &` holding the output pipes
    # (the reference once did: exit 3 became 137 at the grace period).
    paths.ctr("main").mkdir(parents=True)
    bg = paths.root / "bgpid"
    script = f"trap 'exit 3' TERM; sleep 600 & echo $! > {bg}; wait"

    def signal_once_the_job_runs(_pid: int) -> None:
        until(
            lambda: bg.read_text().strip() if bg.exists() else NotYet("no pid yet"),
            timeout=10,
            describe="the background job's pid",
            interval=0.01,
        )
        paths.signal("main").write_text("15")

    run = children.ChildSpec(
        argv=["sh", "-c", script], env={"PATH": "/usr/bin:/bin"}, cwd=None, capture=True
    )
    code = children.run(
        spec=run,
        paths=paths,
        container="main",
        forwarder=children.SignalForwarder(),
        clock=clock,
        poll=0.01,
        on_started=signal_once_the_job_runs,
    )
    job = int(bg.read_text())
    try:
        assert code == 3
        until(
            lambda: _exited(job),
            timeout=5,
            describe="the background job to die of the forwarded SIGTERM",
            interval=0.01,
        )
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(job, signal.SIGKILL)


def test_the_group_of_a_child_in_our_own_group_is_never_signalled():
    # A child that shares the emissary's group gets the signal alone.
    proc = subprocess.Popen(["sleep", "30"])
    try:
        children.signal_group(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=5) == -signal.SIGTERM
    finally:
        proc.kill()
    children.signal_group(proc.pid, signal.SIGTERM)  # gone: no error
