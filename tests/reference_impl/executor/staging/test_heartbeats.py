"""We test these aspects of the supervisor's heartbeat (contract 2.3):

the cadence (every 5 s, first beat one interval after start), that a failing
write does not stop it, that nothing beats after stop() returns, and that the
`slow-heartbeat` fault stretches the interval to 40 s.
"""

from __future__ import annotations

from reference_impl.executor import settings
from reference_impl.executor.staging.heartbeats import Heartbeat


def test_beats_every_five_seconds(clock):
    start = clock.now
    beats = []

    def beat():
        beats.append(clock.now - start)
        if len(beats) == 4:
            heartbeat.stop()

    heartbeat = Heartbeat(beat=beat, clock=clock, interval=5.0)
    heartbeat.run()
    assert beats == [5.0, 10.0, 15.0, 20.0]


def test_a_failing_write_does_not_stop_the_beat(clock):
    beats = []

    def beat():
        beats.append(clock.now)
        if len(beats) == 3:
            heartbeat.stop()
        raise OSError("disk full")

    heartbeat = Heartbeat(beat=beat, clock=clock, interval=5.0)
    heartbeat.run()
    assert len(beats) == 3


def test_nothing_beats_after_stop_returns(clock):
    beats = []
    heartbeat = Heartbeat(beat=lambda: beats.append(1), clock=clock, interval=5.0)
    heartbeat.start()
    heartbeat.stop()
    count = len(beats)
    assert heartbeat._thread is not None
    assert not heartbeat._thread.is_alive()
    assert len(beats) == count


def test_slow_heartbeat_fault_beats_every_40_seconds():
    slow = settings.ExecutorSettings.from_env({"WPC_REFERENCE_FAULT": "slow-heartbeat"})
    normal = settings.ExecutorSettings.from_env({})
    assert slow.timings.heartbeat == 40.0
    assert normal.timings.heartbeat == 5.0
