"""We test killing by signal file (contract 5.1), with containers that obey a signal or none:

SIGTERM first and the grace period to exit, then SIGKILL and `after_sigkill` more;
True once every exitcode file exists, False (and a warning) when some never does;
`wait_until_exited` waits with no deadline. Time is a fake clock whose sleeps let the
containers react to their signal files.
"""

from __future__ import annotations

import logging

import pytest

from reference_impl.executor.files import killing
from reference_impl.executor.protocol import Paths
from tests.reference_impl.executor.conftest import FakeClock

GRACE = 30.0
AFTER_SIGKILL = 10.0
POLL = 1.0


class Containers(FakeClock):
    """Containers that exit once their signal file holds a signal they obey."""

    def __init__(self, paths: Paths, obeys: dict[str, set[int]]) -> None:
        super().__init__()
        self.paths, self.obeys = paths, obeys
        self.exit_after: dict[str, float] = {}

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        for name, signals in self.obeys.items():
            signal_file = self.paths.signal(name)
            if signal_file.exists() and int(signal_file.read_text()) in signals:
                self.paths.exitcode(name).write_text("0")
            if self.now >= self.exit_after.get(name, float("inf")):
                self.paths.exitcode(name).write_text("0")


def kill(paths: Paths, clock: Containers, names: list[str]) -> bool:
    return killing.kill_containers(
        paths=paths,
        containers=names,
        grace=GRACE,
        clock=clock,
        poll=POLL,
        after_sigkill=AFTER_SIGKILL,
    )


def test_containers_that_obey_sigterm_are_not_sent_sigkill(paths: Paths) -> None:
    clock = Containers(paths, {"main": {killing.SIGTERM}, "side": {killing.SIGTERM}})
    start = clock.now
    assert kill(paths, clock, ["main", "side"]) is True
    assert [paths.signal(c).read_text() for c in ("main", "side")] == ["15", "15"]
    assert clock.now - start < GRACE


def test_a_container_ignoring_sigterm_gets_sigkill_after_the_grace_period(
    paths: Paths,
) -> None:
    clock = Containers(paths, {"main": {killing.SIGKILL}})
    start = clock.now
    assert kill(paths, clock, ["main"]) is True
    assert paths.signal("main").read_text() == "9"
    assert GRACE <= clock.now - start < GRACE + AFTER_SIGKILL


def test_a_container_that_never_exits_is_reported_after_sigkill(
    paths: Paths, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Containers(paths, {"main": set()})
    start = clock.now
    with caplog.at_level(logging.WARNING, logger=killing.__name__):
        assert kill(paths, clock, ["main"]) is False
    assert paths.signal("main").read_text() == "9"
    assert clock.now - start == GRACE + AFTER_SIGKILL
    assert "did not exit after SIGKILL" in caplog.text


def test_no_containers_means_nothing_to_kill(paths: Paths) -> None:
    clock = Containers(paths, {})
    assert kill(paths, clock, []) is True
    assert clock.sleeps == []


def test_wait_until_exited_has_no_deadline(paths: Paths) -> None:
    clock = Containers(paths, {"main": set()})
    paths.ctr("main").mkdir(parents=True)
    clock.exit_after["main"] = clock.now + 30 * 24 * 3600.0
    killing.wait_until_exited(
        paths=paths, containers=["main"], clock=clock, poll=3600.0
    )
    assert paths.exitcode("main").exists()
