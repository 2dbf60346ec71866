"""We test these aspects of the emissary's wait for the supervisor (contract 2.3):

READY proceeds, FAILED fails with the supervisor's message, an absent marker
fails at 30 s, a RUNNING (or partial) marker fails once its mtime is 30 s old
and not at 29 s, heartbeats keep it alive, and the wait polls every 2 s. Every
failure is a PreMainFailure (exit 65). Time is a fake clock throughout.
"""

from __future__ import annotations

import os

import pytest

from reference_impl.executor.child import handshake
from reference_impl.executor.errors import PreMainFailure
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import Timings

TIMINGS = Timings()


def write(paths: Paths, token: str, message: str = "", *, mtime: float) -> None:
    markers.write_status(
        path=paths.status,
        tmp_path=paths.status_tmp,
        body=markers.encode(token, message),
    )
    os.utime(paths.status, (mtime, mtime))


def reading(
    token: str | None, *, age: float, now: float = 1000.0
) -> markers.StatusReading:
    return markers.StatusReading(token=token, message="", mtime=now - age)


def test_ready_proceeds():
    assert handshake.evaluate(
        reading(markers.READY, age=100), waited=100, now=1000, timings=TIMINGS
    )


def test_failed_carries_the_supervisors_message(paths, clock):
    write(paths, markers.FAILED, "failed to stage files: boom", mtime=clock.time())
    with pytest.raises(PreMainFailure) as err:
        handshake.wait_for_ready(paths=paths, clock=clock, timings=TIMINGS)
    assert (
        str(err.value)
        == "supervisor reported pre-main failure: failed to stage files: boom"
    )
    assert err.value.exit_code == 65


def test_absent_marker_fails_at_30_seconds_not_before(paths, clock):
    start = clock.now
    with pytest.raises(PreMainFailure) as err:
        handshake.wait_for_ready(paths=paths, clock=clock, timings=TIMINGS)
    assert str(err.value) == (
        "supervisor presumed dead: status marker never appeared within 30s"
    )
    assert clock.now - start == 30.0
    assert set(clock.sleeps) == {2.0}


def test_absent_marker_at_29_seconds_keeps_waiting():
    assert not handshake.evaluate(None, waited=29.9, now=1000, timings=TIMINGS)


def test_running_marker_is_stale_at_30_seconds():
    with pytest.raises(PreMainFailure) as err:
        handshake.evaluate(
            reading(markers.RUNNING, age=30), waited=0, now=1000, timings=TIMINGS
        )
    assert str(err.value) == "supervisor presumed dead: no status update within 30s"


def test_running_marker_is_not_stale_at_29_seconds():
    assert not handshake.evaluate(
        reading(markers.RUNNING, age=29), waited=500, now=1000, timings=TIMINGS
    )


def test_partial_body_counts_as_running_and_goes_stale():
    assert not handshake.evaluate(
        reading(None, age=29), waited=0, now=1000, timings=TIMINGS
    )
    with pytest.raises(PreMainFailure):
        handshake.evaluate(reading(None, age=30), waited=0, now=1000, timings=TIMINGS)


def test_heartbeats_keep_a_slow_supervisor_alive_until_ready(paths, clock):
    start = clock.now
    write(paths, markers.RUNNING, mtime=start)
    polls = []

    def pause(seconds):
        polls.append(seconds)
        clock.sleep(seconds)
        elapsed = clock.now - start
        if elapsed >= 60:
            write(paths, markers.READY, mtime=clock.now)
        elif elapsed % 5 == 0 or elapsed % 5 == 1:
            write(paths, markers.RUNNING, mtime=clock.now)  # a beat every ~5 s

    handshake.wait_for_ready(paths=paths, clock=clock, timings=TIMINGS, pause=pause)
    assert clock.now - start == 60.0
    assert set(polls) == {2.0}


def test_heartbeat_that_stops_is_noticed_30_seconds_after_the_last_beat(paths, clock):
    start = clock.now
    write(
        paths, markers.RUNNING, mtime=start + 4
    )  # the last beat, 4 s after the wait began
    with pytest.raises(PreMainFailure, match="no status update within 30s"):
        handshake.wait_for_ready(paths=paths, clock=clock, timings=TIMINGS)
    assert clock.now == start + 34


def test_marker_that_appears_late_is_accepted(paths, clock):
    start = clock.now

    def pause(seconds):
        clock.sleep(seconds)
        if clock.now - start >= 20:
            write(paths, markers.READY, mtime=clock.now)

    handshake.wait_for_ready(paths=paths, clock=clock, timings=TIMINGS, pause=pause)
    assert clock.now - start == 20.0
