"""We test these aspects of the wait helpers, with a fake clock (no real time):

- until() returns the first truthy result, and needs `consecutive` in a row;
- the timeout error says what was awaited, for how long, and the last observation
  (a NotYet's content, or the last assertion message);
- other exceptions escape at once;
- watch_until() checks the listed state first, then watched events, re-listing
  after an ERROR event, and times out with the last observation.
"""

from __future__ import annotations

import pytest

from conformance.errors import WaitTimeout
from conformance.waiting import NotYet
from conformance.waiting import until
from conformance.watching import watch_until


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
    values = iter([None, NotYet("Pending"), "Succeeded"])
    clock = FakeClock()
    assert (
        until(lambda: next(values), timeout=10, interval=1, describe="x", clock=clock)
        == "Succeeded"
    )
    assert clock.sleeps == [1, 1]


def test_until_timeout_names_what_how_long_and_the_last_observation():
    clock = FakeClock()
    phases = iter(["Pending", "Running", "Running", "Running"])
    with pytest.raises(WaitTimeout) as info:
        until(
            lambda: NotYet(f"phase={next(phases)}"),
            timeout=3,
            interval=1,
            describe="workflow wpc-1/wf-abc to succeed",
            clock=clock,
        )
    assert str(info.value) == (
        "timed out after 3 s waiting for workflow wpc-1/wf-abc to succeed; "
        "last observed: phase=Running"
    )
    assert clock.now == 3


def test_until_reports_the_last_assertion_message():
    def check() -> bool:
        raise AssertionError("exit code was 1, wanted 0")

    with pytest.raises(
        WaitTimeout, match="last observed: assertion failed: exit code was 1, wanted 0"
    ):
        until(check, timeout=2, interval=1, describe="x", clock=FakeClock())


def test_until_needs_consecutive_successes():
    values = iter([True, False, True, True, True])
    clock = FakeClock()
    assert until(
        lambda: next(values),
        timeout=10,
        interval=1,
        describe="x",
        consecutive=3,
        clock=clock,
    )
    assert clock.now == 4


def test_until_lets_other_exceptions_escape_at_once():
    def check() -> bool:
        raise KeyError("status")

    clock = FakeClock()
    with pytest.raises(KeyError):
        until(check, timeout=10, interval=1, describe="x", clock=clock)
    assert clock.now == 0


def test_until_never_sleeps_past_the_deadline():
    clock = FakeClock()
    with pytest.raises(WaitTimeout):
        until(lambda: False, timeout=2.5, interval=1, describe="x", clock=clock)
    assert clock.sleeps == [1, 1, 0.5]


def _listing(*objs: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"resourceVersion": "7"}, "items": list(objs)}


def test_watch_until_accepts_a_listed_object_without_watching():
    def streams(*args, **kwargs):
        raise AssertionError("should not watch")

    found = watch_until(
        lambda *a, **k: _listing({"phase": "Succeeded"}),
        check=lambda o: o if o["phase"] == "Succeeded" else NotYet(o["phase"]),
        timeout=5,
        describe="x",
        clock=FakeClock(),
        stream=streams,
    )
    assert found == {"phase": "Succeeded"}


def test_watch_until_follows_events_and_relists_after_an_error():
    calls = []

    def streams(list_fn, *args, **kwargs):
        calls.append(kwargs["resource_version"])
        if len(calls) == 1:
            return iter(
                [
                    {"type": "MODIFIED", "object": {"phase": "Running"}},
                    {"type": "ERROR", "object": {}},
                ]
            )
        return iter([{"type": "MODIFIED", "object": {"phase": "Failed"}}])

    found = watch_until(
        lambda *a, **k: _listing({"phase": "Pending"}),
        check=lambda o: (
            o if o["phase"] in {"Failed", "Succeeded"} else NotYet(o["phase"])
        ),
        timeout=5,
        describe="x",
        clock=FakeClock(),
        stream=streams,
    )
    assert found == {"phase": "Failed"}
    assert calls == ["7", "7"]


def test_watch_until_times_out_with_the_last_observation():
    clock = FakeClock()

    def streams(list_fn, *args, **kwargs):
        clock.now += kwargs["timeout_seconds"]
        return iter([{"type": "MODIFIED", "object": {"phase": "Running"}}])

    with pytest.raises(
        WaitTimeout, match="waiting for wf to finish; last observed: Running"
    ):
        watch_until(
            lambda *a, **k: _listing(),
            check=lambda o: NotYet(o["phase"]),
            timeout=5,
            describe="wf to finish",
            clock=clock,
            stream=streams,
        )
