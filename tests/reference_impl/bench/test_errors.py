"""We test these aspects of the benchmark's errors: the evidence-carrying ones are
the bottom layer's, so `plumbing.waiting.until(..., error=WaitTimeout)` raises an
error the command line catches as BenchError, with what, how long and the last
observation; a fake clock keeps real time out.
"""

from __future__ import annotations

import pytest

from plumbing import errors
from plumbing import waiting
from reference_impl.bench.errors import BenchError
from reference_impl.bench.errors import CommandError
from reference_impl.bench.errors import WaitTimeout


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_wait_timeout_is_caught_by_package():
    with pytest.raises(BenchError) as caught:
        waiting.until(
            lambda: waiting.NotYet("phase=Terminating"),
            timeout=2,
            interval=1,
            describe="namespace ns to be deleted",
            clock=FakeClock(),
            error=WaitTimeout,
        )
    error = caught.value
    assert isinstance(error, errors.WaitTimeout)
    assert error.last_observed == "phase=Terminating"
    assert "waiting for namespace ns to be deleted" in str(error)


def test_a_command_error_is_a_command_failed():
    error = CommandError(command=["kubectl", "get"], returncode=1, output="no")
    assert isinstance(error, BenchError)
    assert isinstance(error, errors.CommandFailed)
    assert "kubectl get" in str(error)
