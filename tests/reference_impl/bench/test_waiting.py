"""We test these aspects of the one polling helper: it returns the first truthy
result, and on timeout raises WaitTimeout naming what it waited for, the
timeout and the last observation; a fake clock keeps real time out.
"""

from __future__ import annotations

import pytest

from reference_impl.bench.errors import WaitTimeout
from reference_impl.bench.waiting import NotYet
from reference_impl.bench.waiting import until


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_returns_the_first_truthy_result():
    results = iter([NotYet("a"), NotYet("b"), "done"])
    clock = FakeClock()
    got = until(
        lambda: next(results), timeout=10, interval=1, describe="x", clock=clock
    )
    assert got == "done"
    assert clock.sleeps == [1, 1]


def test_timeout_carries_the_last_observation():
    calls = iter(range(100))
    clock = FakeClock()
    with pytest.raises(WaitTimeout) as info:
        until(
            lambda: NotYet(f"seen {next(calls)}"),
            timeout=2.5,
            interval=1,
            describe="namespace ns to be deleted",
            clock=clock,
        )
    assert info.value.last_observed == "seen 3"
    assert "after 2.5s waiting for namespace ns to be deleted" in str(info.value)
    assert clock.sleeps == [1, 1, 0.5]
