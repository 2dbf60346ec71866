"""Judging when a suspended step resumed across a controller outage (`chaos.workflow.suspends`).

We test these aspects: a suspend `duration` is read as upstream writes it (a
bare integer is seconds, else `1m30s` style) and anything else is refused
naming the text; the Suspend node is found by display name and its duration
in its template; the verdict: on time passes with the evidence, a moved
startedAt (the timer restarted), an early or a late resume fail, and a
controller that came back before the duration ended is no evidence at all
(Inconclusive, never a failure of the system under test).
"""

from __future__ import annotations

import pytest

from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.workflow import suspends

T0 = 1_700_000_000.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("20", 20.0), ("20s", 20.0), ("1m30s", 90.0), ("1h", 3600.0), ("500ms", 0.5)],
)
def test_a_duration_is_read_in_seconds(text, seconds):
    assert suspends.duration_seconds(text) == seconds


@pytest.mark.parametrize("text", ["", "-5", "20x", "soon", "1m 30s"])
def test_an_unreadable_duration_is_refused_naming_it(text):
    with pytest.raises(ValueError, match="suspend duration"):
        suspends.duration_seconds(text)


def test_the_timestamp_is_read_as_utc():
    assert suspends.epoch("2023-11-14T22:13:20Z") == T0


def _workflow(*nodes, templates=None):
    return {
        "spec": {"templates": templates or []},
        "status": {"nodes": {n["id"]: n for n in nodes}},
    }


PAUSE = {
    "id": "wf-1",
    "type": "Suspend",
    "displayName": "pause",
    "templateName": "pause",
    "phase": "Running",
}


def test_the_suspend_node_is_found_by_display_name_and_type():
    pod = {"id": "wf-2", "type": "Pod", "displayName": "pause"}
    workflow = _workflow(pod, PAUSE)
    assert suspends.suspend_node(workflow, "pause") == PAUSE
    assert suspends.suspend_node(workflow, "other") is None
    assert suspends.suspend_node({"status": {}}, "pause") is None


def test_two_suspend_nodes_of_one_name_are_unexpected():
    twin = {**PAUSE, "id": "wf-9"}
    with pytest.raises(Unexpected, match="2 Suspend nodes"):
        suspends.suspend_node(_workflow(PAUSE, twin), "pause")


def test_the_duration_comes_from_the_node_template():
    templates = [{"name": "pause", "suspend": {"duration": "20"}}]
    assert suspends.duration_of(_workflow(templates=templates), PAUSE) == 20.0
    with pytest.raises(ValueError, match=r"no suspend\.duration"):
        suspends.duration_of(_workflow(templates=[{"name": "pause"}]), PAUSE)


def _judge(*, started=T0, finished=T0 + 28, controller=T0 + 25, before=T0, within=18.0):
    resume = suspends.Resume(
        started=started, finished=finished, duration=20.0, controller_started=controller
    )
    return suspends.judge_resume(
        resume, node="wf-1 (pause)", started_before=before, within=within
    )


def test_a_resume_after_the_duration_and_soon_after_the_restart_passes():
    text = _judge()
    assert "controller pod started 5 s after" in text
    assert "resumed 3 s after the controller pod started" in text


def test_a_resume_exactly_when_the_duration_ends_is_on_time():
    # Whole-second timestamps: the controller resumes once now > start + duration.
    assert _judge(finished=T0 + 20, controller=T0 + 20.5)


def test_a_moved_start_is_a_restarted_timer():
    with pytest.raises(Unexpected, match="startedAt moved"):
        _judge(started=T0 + 25, finished=T0 + 46, before=T0)


def test_a_resume_before_the_duration_ended_is_unexpected():
    with pytest.raises(Unexpected, match="before its duration ended"):
        _judge(finished=T0 + 19, controller=T0 + 21)


def test_a_resume_long_after_the_restart_is_unexpected():
    # 20 s after the controller started: a timer counted from start-up.
    with pytest.raises(Unexpected, match="more than 18 s"):
        _judge(finished=T0 + 45, controller=T0 + 25)


def test_a_controller_back_before_the_duration_ended_proves_nothing():
    with pytest.raises(Inconclusive, match="did not span the end of the duration"):
        _judge(finished=T0 + 21, controller=T0 + 20)


def test_a_bound_as_long_as_the_duration_is_held_below_it():
    # A timeout scale of 3 would make 18 s into 54 s: a timer restarted at start-up
    # (resumed 20 s after the controller came back) must still be caught.
    with pytest.raises(Unexpected, match="more than 19 s"):
        _judge(finished=T0 + 45, controller=T0 + 25, within=54.0)
    assert _judge(finished=T0 + 44, controller=T0 + 25, within=54.0)
