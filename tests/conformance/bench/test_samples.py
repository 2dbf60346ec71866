"""We test these aspects of `samples.measure`: every figure from synthetic
observations (boot clock, wall clock, whole-second API timestamps), the main
container's startedAt from running or terminated state, missing sources giving
None rather than an error, and ClockError when the pod's boot clock is not the
host's.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.bench import samples
from reference_impl.bench.errors import ClockError

BOOT_EPOCH = 1_795_315_000.0
"""Wall-clock time of boot in these tests: boot second b is wall BOOT_EPOCH + b."""


def _observed(**overrides: Any) -> samples.Observed:
    values: dict[str, Any] = {
        "workflow": "wf-1",
        "submitted_boot": 100.0,
        "pod_seen_boot": 100.25,
        "pod_seen_wall": BOOT_EPOCH + 100.25,
        "finished_boot": 109.0,
        "phase": "Succeeded",
    }
    values.update(overrides)
    return samples.Observed(**values)


def _pod(state: str = "terminated") -> dict[str, Any]:
    return {
        # Wall BOOT_EPOCH + 100.25 truncated to the second, in RFC 3339.
        "metadata": {"name": "wf-1", "creationTimestamp": "2026-11-22T02:38:20Z"},
        "status": {
            "containerStatuses": [
                {"name": "wait", "state": {"running": {"startedAt": "x"}}},
                {
                    "name": "main",
                    "state": {state: {"startedAt": "2026-11-22T02:38:23Z"}},
                },
            ]
        },
    }


def test_every_figure_is_computed_from_its_two_sources():
    # Boot second 100 is 2026-11-22T02:38:20Z, the pod's (truncated) creation.
    log = "wpc-bench-start uptime=104.50 wall=1795315104\n"

    sample = samples.measure(_observed(), pod=_pod(), log=log, boot_epoch=BOOT_EPOCH)

    assert sample.pod == "wf-1"
    assert sample.pod_startup == pytest.approx(4.25)
    assert sample.created_to_user == pytest.approx(4.5)
    assert sample.created_to_started == pytest.approx(3.0)
    assert sample.started_to_user == pytest.approx(1.5)
    assert sample.seen_after_created == pytest.approx(0.25)
    assert sample.submit_to_pod_seen == pytest.approx(0.25)
    assert sample.workflow_duration == pytest.approx(9.0)
    assert sample.clock_skew == pytest.approx(-0.5)


@pytest.mark.parametrize("state", ["running", "terminated"])
def test_main_started_at_comes_from_running_or_terminated_state(state):
    assert samples.main_started_at(_pod(state)) == "2026-11-22T02:38:23Z"


def test_main_started_at_is_none_while_waiting():
    assert samples.main_started_at(_pod("waiting")) is None
    assert samples.main_started_at({}) is None


def test_missing_pod_and_log_give_none_figures():
    sample = samples.measure(
        _observed(pod_seen_boot=None, pod_seen_wall=None),
        pod=None,
        log=None,
        boot_epoch=BOOT_EPOCH,
    )
    assert sample.pod is None
    assert sample.pod_startup is None
    assert sample.created_to_started is None
    assert sample.clock_skew is None
    assert sample.workflow_duration == pytest.approx(9.0)


def test_a_pod_on_another_machine_is_a_clock_error():
    # The pod's uptime is far from this host's boot clock: date - uptime disagrees.
    log = "wpc-bench-start uptime=9.00 wall=1795315104\n"
    with pytest.raises(ClockError, match=r"wf-1.*differs from this host's by \+95"):
        samples.measure(_observed(), pod=_pod(), log=log, boot_epoch=BOOT_EPOCH)


def test_as_json_names_every_figure():
    sample = samples.measure(_observed(), pod=None, log=None, boot_epoch=BOOT_EPOCH)
    assert set(sample.as_json()) >= {"pod_startup", "created_to_user", "clock_skew"}
