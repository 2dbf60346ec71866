"""We test these aspects of the suite's waits, with a fake clock (no real time):

- until() is plumbing's wait raising the suite's WaitTimeout, which is also an
  AssertionError, a ConformanceError and a plumbing WaitTimeout (so a timeout in
  a test body fails it rather than erroring it);
- watch_until() checks the listed state first, then watched events, re-listing
  after an ERROR event, and times out with the last observation.

The generic behaviour of `until` is tested in tests/plumbing/test_waiting.py.
"""

from __future__ import annotations

import pytest

from conformance.errors import ConformanceError
from conformance.errors import WaitTimeout
from conformance.harness.cluster.watching import until
from conformance.harness.cluster.watching import watch_until
from plumbing import errors as plumbing_errors
from plumbing.waiting import NotYet
from tests.plumbing.test_waiting import FakeClock


def test_until_raises_the_suites_wait_timeout():
    clock = FakeClock()
    with pytest.raises(WaitTimeout) as info:
        until(
            lambda: NotYet("phase=Running"),
            timeout=3,
            interval=1,
            describe="workflow wpc-1/wf-abc to succeed",
            clock=clock,
        )
    assert isinstance(info.value, AssertionError)
    assert isinstance(info.value, ConformanceError)
    assert isinstance(info.value, plumbing_errors.WaitTimeout)
    assert str(info.value) == (
        "timed out after 3 s waiting for workflow wpc-1/wf-abc to succeed; "
        "last observed: phase=Running"
    )


def test_until_passes_consecutive_and_ignoring_through():
    values = iter([True, KeyError("x"), True, True])

    def check() -> bool:
        value = next(values)
        if isinstance(value, Exception):
            raise value
        return value

    clock = FakeClock()
    assert until(
        check,
        timeout=10,
        interval=1,
        describe="x",
        consecutive=2,
        ignoring=(KeyError,),
        clock=clock,
    )
    assert clock.now == 3


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
