"""We test these aspects of the one wait helper, with a fake clock (no real time):

- until() returns the first truthy result, and needs `consecutive` in a row;
- the timeout error says what was awaited, for how long, and the last observation
  (a NotYet's content, the last assertion message, or an ignored exception);
- other exceptions escape at once, and Abort escapes even when ignored;
- a package's own WaitTimeout subclass is what it raises when asked.
"""

from __future__ import annotations

import pytest

from plumbing.errors import WaitTimeout
from plumbing.waiting import Abort
from plumbing.waiting import NotYet
from plumbing.waiting import until


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_until_returns_the_first_truthy_result():
    results = iter([NotYet("a"), None, 0, "done"])
    clock = FakeClock()
    assert (
        until(lambda: next(results), timeout=10, interval=1, describe="x", clock=clock)
        == "done"
    )
    assert clock.sleeps == [1, 1, 1]


def test_until_timeout_names_what_how_long_and_the_last_observation():
    clock = FakeClock()
    with pytest.raises(WaitTimeout) as info:
        until(
            lambda: NotYet("phase=Pending"),
            timeout=3,
            interval=1,
            describe="the pod",
            clock=clock,
        )
    text = str(info.value)
    assert "timed out after 3 s waiting for the pod" in text
    assert "last observed: phase=Pending" in text
    assert info.value.last_observed == "phase=Pending"


def test_until_reports_the_last_assertion_message():
    def check() -> bool:
        raise AssertionError("exit code was 1, wanted 0")

    with pytest.raises(WaitTimeout, match="assertion failed: exit code was 1"):
        until(check, timeout=2, interval=1, describe="x", clock=FakeClock())


def test_until_needs_consecutive_successes():
    results = iter([1, 1, NotYet("flap"), 1, 1, 1])
    clock = FakeClock()
    assert (
        until(
            lambda: next(results),
            timeout=10,
            interval=1,
            describe="x",
            consecutive=3,
            clock=clock,
        )
        == 1
    )
    assert len(clock.sleeps) == 5


def test_until_lets_other_exceptions_escape_at_once():
    clock = FakeClock()

    def check() -> bool:
        raise KeyError("boom")

    with pytest.raises(KeyError):
        until(check, timeout=10, interval=1, describe="x", clock=clock)
    assert clock.sleeps == []


def test_until_treats_ignored_exceptions_as_not_yet_and_reports_them():
    def check() -> bool:
        raise ConnectionRefusedError("connection refused")

    with pytest.raises(WaitTimeout, match="ConnectionRefusedError: connection refused"):
        until(
            check,
            timeout=2,
            interval=1,
            describe="x",
            ignoring=(OSError,),
            clock=FakeClock(),
        )


def test_abort_ends_the_wait_even_when_exceptions_are_ignored():
    clock = FakeClock()

    def check() -> bool:
        raise Abort("the process exited")

    with pytest.raises(Abort):
        until(
            check,
            timeout=10,
            interval=1,
            describe="x",
            ignoring=(Exception,),
            clock=clock,
        )
    assert clock.sleeps == []


def test_until_never_sleeps_past_the_deadline():
    clock = FakeClock()
    with pytest.raises(WaitTimeout):
        until(lambda: NotYet(1), timeout=2.5, interval=1, describe="x", clock=clock)
    assert clock.sleeps == [1, 1, 0.5]


def test_until_raises_the_subclass_a_package_asks_for():
    class PackageTimeout(WaitTimeout, AssertionError):
        pass

    with pytest.raises(PackageTimeout):
        until(
            lambda: NotYet(1),
            timeout=1,
            interval=1,
            describe="x",
            clock=FakeClock(),
            error=PackageTimeout,
        )
