"""We test these aspects of the host-wide scenario locks (`conformance.harness.instances.locking`):

- the lock file is named after the lock and the cluster, so locks of other
  clusters (or other names) never block each other; a name must be a DNS label;
- while one holder has it, another waits and, out of time, gets a HarnessError
  (not a verdict) naming the holder; once released, the next one gets it;
- a crashed holder does not keep it (closing the descriptor releases it);
- a lock file planted as a symbolic link is never followed, and a lock
  directory that is a link, a file or writable by others is refused by name;
  root's locks live in /run/wpc-locks, not a shared /tmp.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.errors import HarnessError
from conformance.harness.instances import locking


class FakeClock:
    """Time passes only when the wait helper sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def hold(tmp_path, *, cluster="https://10.0.0.1:6443", holder="t::a", timeout=3.0):
    return locking.held(
        locking.UNLABELLED_WORKFLOWS,
        cluster=cluster,
        holder=holder,
        timeout=timeout,
        interval=1.0,
        directory=tmp_path,
        clock=FakeClock(),
    )


def test_the_lock_file_names_the_lock_and_the_cluster(tmp_path):
    one = locking.lock_path("x", cluster="https://a:6443", directory=tmp_path)
    assert one.name.endswith("-x.lock")
    assert one != locking.lock_path("x", cluster="https://b:6443", directory=tmp_path)
    assert one != locking.lock_path("y", cluster="https://a:6443", directory=tmp_path)
    with pytest.raises(HarnessError, match="not a DNS label"):
        locking.lock_path("../x", cluster="https://a:6443", directory=tmp_path)


def test_a_second_holder_waits_and_times_out_naming_the_first(tmp_path):
    with hold(tmp_path, holder="tests/a.py::first") as path:
        assert "tests/a.py::first (pid " in path.read_text()
        with (
            pytest.raises(HarnessError, match=r"tests/b.py::second: .*first") as err,
            hold(tmp_path, holder="tests/b.py::second"),
        ):
            pass
        assert "timed out after 3 s waiting for the lock" in str(err.value)
    with hold(tmp_path, holder="tests/b.py::second") as path:
        assert "second" in path.read_text()


def test_a_waiter_is_told_once_who_holds_the_lock_and_a_free_lock_tells_nobody(
    tmp_path,
):
    told: list[str] = []

    def waiting_for(holder: str):
        return locking.held(
            locking.PREPARE,
            cluster="https://10.0.0.1:6443",
            holder=holder,
            timeout=3.0,
            interval=1.0,
            directory=tmp_path,
            clock=FakeClock(),
            waiting=told.append,
        )

    with waiting_for("the run one"):
        assert told == []
        with pytest.raises(HarnessError), waiting_for("the run two"):
            pass
    assert len(told) == 1
    assert told[0].startswith("the run one (pid ")


def test_another_cluster_is_not_blocked(tmp_path):
    with (
        hold(tmp_path, cluster="https://a:6443"),
        hold(tmp_path, cluster="https://b:6443"),
    ):
        pass


def test_a_crashed_holder_releases_the_lock(tmp_path):
    path = locking.lock_path(
        locking.UNLABELLED_WORKFLOWS, cluster="https://c:6443", directory=tmp_path
    )
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from conformance.harness.instances import locking
        with locking.held({locking.UNLABELLED_WORKFLOWS!r}, cluster="https://c:6443",
                          holder="crasher", timeout=5, interval=1, directory=Path({str(tmp_path)!r})):
            os._exit(3)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == 3
    assert "crasher" in path.read_text()
    with hold(tmp_path, cluster="https://c:6443", timeout=0.5, holder="next") as again:
        assert "next" in again.read_text()


def _hold(directory: Path) -> None:
    with locking.held(
        "x",
        cluster="https://s:6443",
        holder="t",
        timeout=1.0,
        interval=0.1,
        directory=directory,
    ):
        pass


def test_a_planted_link_is_never_followed(tmp_path: Path):
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    locking.lock_path("x", cluster="https://s:6443", directory=locks).symlink_to(victim)
    with pytest.raises(HarnessError, match="cannot open the lock file"):
        _hold(locks)
    assert victim.read_text() == "precious"


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda d, t: (t.mkdir(), d.symlink_to(t)), "is a symbolic link"),
        (lambda d, t: (d.mkdir(), d.chmod(0o777)), "is writable by others"),
        (lambda d, t: d.write_text(""), "is not a directory"),
    ],
    ids=["link", "world-writable", "file"],
)
def test_a_lock_directory_others_could_change_is_refused(tmp_path: Path, make, problem):
    locks, target = tmp_path / "locks", tmp_path / "elsewhere"
    make(locks, target)
    with pytest.raises(HarnessError, match=problem):
        _hold(locks)


def test_root_keeps_its_locks_out_of_tmp(monkeypatch):
    monkeypatch.setattr(locking.os, "geteuid", lambda: 0)
    assert locking.default_directory() == Path("/run/wpc-locks")
    monkeypatch.setattr(locking.os, "geteuid", lambda: 1000)
    assert locking.default_directory() == Path.home() / ".cache" / "wpc" / "locks"


LIFE = """
import os, sys
from pathlib import Path
from conformance.harness.instances import locking
locking.hold_for_life(sys.argv[2], cluster="https://s:6443", directory=Path(sys.argv[1]))
print("held", flush=True)
if sys.argv[3] == "die":
    os.kill(os.getpid(), 9)
sys.stdin.readline()
"""


def _life(tmp_path: Path, name: str, how: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", LIFE, str(tmp_path), name, how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def _liveness(tmp_path: Path, name: str) -> str:
    return locking.liveness(name, cluster="https://s:6443", directory=tmp_path)


def test_a_session_lock_says_alive_while_its_run_lives_and_nothing_after_a_clean_end(
    tmp_path: Path,
):
    proc = _life(tmp_path, "session-a", "live")
    assert _liveness(tmp_path, "session-a") == locking.ALIVE
    proc.communicate("\n", timeout=30)
    assert proc.returncode == 0
    # A clean end removes the file: nothing for a later run to sweep.
    assert _liveness(tmp_path, "session-a") == locking.UNKNOWN


def test_a_run_that_died_leaves_a_dead_lock_until_it_is_forgotten(tmp_path: Path):
    proc = _life(tmp_path, "session-b", "die")
    proc.communicate(timeout=30)
    assert proc.returncode == -9
    assert _liveness(tmp_path, "session-b") == locking.DEAD
    locking.forget("session-b", cluster="https://s:6443", directory=tmp_path)
    assert _liveness(tmp_path, "session-b") == locking.UNKNOWN


def test_a_session_this_host_never_started_is_unknown(tmp_path: Path):
    assert _liveness(tmp_path, "session-c") == locking.UNKNOWN
