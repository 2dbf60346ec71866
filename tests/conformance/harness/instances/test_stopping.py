"""We test how the SIGTERM scenario judges a controller's stop (WPC-RECOVERY-011):

- within bound + tolerance passes, just over it fails;
- a failure says whether the controller was killed at the end of its grace
  period (exit code 137, or as long as the grace period) or was still stopping,
  with the measured time, the grace period and the exit code;
- a grace period at or below the limit is raised first (else the kill itself
  would pass), a longer one is left alone;
- the exit code comes from the last pod version with a terminated container.
"""

from __future__ import annotations

import pytest

from conformance.harness.instances import stopping


def test_a_stop_within_the_bound_and_tolerance_passes():
    for elapsed in (0.4, 12.9, 13.0):
        assert (
            stopping.judge(
                elapsed=elapsed,
                bound=10,
                tolerance=3,
                grace_seconds=30,
                exit_code=0,
            )
            is None
        )


def test_upstream_v4_1_0_killed_at_the_grace_period_fails_with_the_evidence():
    message = stopping.judge(
        elapsed=30.6, bound=10, tolerance=3, grace_seconds=30, exit_code=137
    )
    assert message is not None
    assert "gone 30.6 s after a graceful deletion, more than 10 s (+3 s" in message
    assert "ignored SIGTERM and was killed at the end of its grace period" in message
    assert "grace period 30 s, last exit code 137" in message


@pytest.mark.parametrize(
    ("elapsed", "exit_code", "killed"),
    [(30.2, None, True), (14.0, 137, True), (14.0, 0, False), (14.0, None, False)],
)
def test_a_late_stop_says_whether_it_was_the_kill(elapsed, exit_code, killed):
    message = stopping.judge(
        elapsed=elapsed, bound=10, tolerance=3, grace_seconds=30, exit_code=exit_code
    )
    assert message is not None
    assert ("killed at the end of its grace period" in message) is killed
    assert ("still stopping" in message) is not killed


@pytest.mark.parametrize(
    ("grace", "expected"), [(30, None), (14, None), (13, 26), (1, 26), (None, 26)]
)
def test_a_grace_period_too_short_to_tell_is_raised_first(grace, expected):
    assert stopping.grace_to_set(grace, 13.0) == expected


def test_the_exit_code_comes_from_the_last_terminated_version():
    def version(state):
        return {"status": {"containerStatuses": [{"state": state}]}}

    versions = [
        version({"running": {}}),
        version({"terminated": {"exitCode": 137}}),
        version({"waiting": {}}),
    ]
    assert stopping.last_exit_code(versions) == 137
    assert stopping.last_exit_code([version({"running": {}}), {"status": None}]) is None
