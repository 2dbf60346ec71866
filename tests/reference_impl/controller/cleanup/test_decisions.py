"""We test these aspects of pod clean-up and the status finalizer (contract 4): the
completion action per podGC strategy, the merge patch (label, finalizer, resourceVersion),
pod-event decisions for deleting and orphaned pods and their delays, and label selectors."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from reference_impl.controller.cleanup import decisions

FINALIZER = "workflows.argoproj.io/status"
Json = dict[str, Any]


def pod(
    *,
    phase: str = "Succeeded",
    finalizers: tuple[str, ...] = (FINALIZER,),
    gc: str | None = None,
    transition: str = "2026-01-02T03:00:00Z",
) -> Json:
    meta: Json = {
        "name": "p",
        "namespace": "ns",
        "resourceVersion": "42",
        "finalizers": list(finalizers),
        "annotations": {},
    }
    if gc:
        meta["annotations"]["workflows.argoproj.io/pod-gc-strategy"] = gc
    return {
        "metadata": meta,
        "status": {
            "phase": phase,
            "conditions": [{"type": "Ready", "lastTransitionTime": transition}],
        },
    }


@pytest.mark.parametrize(
    ("strategy", "matches", "wf_phase", "pod_phase", "expected"),
    [
        ("", False, "Running", "Succeeded", decisions.Action.LABEL_COMPLETED),
        ("", True, "Running", "Succeeded", decisions.Action.LABEL_COMPLETED),
        (
            "OnPodCompletion",
            False,
            "Running",
            "Failed",
            decisions.Action.LABEL_COMPLETED,
        ),
        ("OnPodCompletion", True, "Running", "Failed", decisions.Action.DELETE),
        ("OnPodSuccess", True, "Running", "Succeeded", decisions.Action.DELETE),
        ("OnPodSuccess", True, "Running", "Failed", decisions.Action.LABEL_COMPLETED),
        ("OnWorkflowCompletion", True, "Failed", "Succeeded", decisions.Action.DELETE),
        (
            "OnWorkflowCompletion",
            True,
            "Running",
            "Succeeded",
            decisions.Action.REMOVE_FINALIZER,
        ),
        (
            "OnWorkflowSuccess",
            True,
            "Failed",
            "Succeeded",
            decisions.Action.LABEL_COMPLETED,
        ),
        ("OnWorkflowSuccess", True, "Succeeded", "Succeeded", decisions.Action.DELETE),
    ],
)
def test_completion_action(strategy, matches, wf_phase, pod_phase, expected):
    action = decisions.completion_action(
        pod=pod(phase=pod_phase),
        strategy=strategy,
        selector_matches=matches,
        workflow_phase=wf_phase,
    )
    assert action is expected


def test_nothing_to_do_for_a_running_workflows_pod_without_finalizer() -> None:
    action = decisions.completion_action(
        pod=pod(finalizers=()),
        strategy="OnWorkflowCompletion",
        selector_matches=True,
        workflow_phase="Running",
    )
    assert action is None


def test_cleanup_patch_labels_and_strips_only_our_finalizer_with_resource_version() -> (
    None
):
    subject = pod(finalizers=("other/finalizer", FINALIZER))
    assert decisions.cleanup_patch(subject, label_completed=True) == {
        "metadata": {
            "labels": {"workflows.argoproj.io/completed": "true"},
            "finalizers": ["other/finalizer"],
            "resourceVersion": "42",
        }
    }


def test_cleanup_patch_without_our_finalizer_only_labels() -> None:
    bare = pod(finalizers=("other/finalizer",))
    assert decisions.cleanup_patch(bare, label_completed=True) == {
        "metadata": {"labels": {"workflows.argoproj.io/completed": "true"}}
    }
    assert decisions.cleanup_patch(bare, label_completed=False) is None


def test_cleanup_patch_strips_our_finalizer_even_with_the_setting_off() -> None:
    # The patch has no notion of the setting: pods created while it was on
    # still carry the finalizer and must be released (WPC-FINALIZER-009).
    subject = pod(finalizers=(FINALIZER,))
    assert decisions.cleanup_patch(subject, label_completed=False) == {
        "metadata": {"finalizers": [], "resourceVersion": "42"}
    }


@pytest.mark.parametrize(
    ("deleting", "orphaned", "finalizers", "gc", "expected"),
    [
        (True, False, (FINALIZER,), None, decisions.Action.REMOVE_FINALIZER),
        (True, False, (), None, None),
        (False, True, (FINALIZER,), None, decisions.Action.REMOVE_FINALIZER),
        (False, True, (FINALIZER,), "OnPodSuccess/0s", decisions.Action.DELETE),
        (False, False, (FINALIZER,), None, None),
    ],
)
def test_pod_event_action(deleting, orphaned, finalizers, gc, expected):
    subject = pod(finalizers=finalizers, gc=gc)
    assert (
        decisions.pod_event_action(pod=subject, deleting=deleting, orphaned=orphaned)
        is expected
    )


def test_deleting_pods_keep_the_finalizer_for_two_minutes_after_their_last_transition() -> (
    None
):
    now = datetime.datetime(2026, 1, 2, 3, 0, 30, tzinfo=datetime.UTC)
    delay = decisions.pod_event_delay(
        pod=pod(), action=decisions.Action.REMOVE_FINALIZER, deleting=True, now=now
    )
    assert delay == 90.0
    later = now + datetime.timedelta(minutes=5)
    assert (
        decisions.pod_event_delay(
            pod=pod(),
            action=decisions.Action.REMOVE_FINALIZER,
            deleting=True,
            now=later,
        )
        == 0.0
    )


def test_orphaned_pods_lose_the_finalizer_at_once() -> None:
    now = datetime.datetime(2026, 1, 2, 3, 0, 30, tzinfo=datetime.UTC)
    assert (
        decisions.pod_event_delay(
            pod=pod(), action=decisions.Action.REMOVE_FINALIZER, deleting=False, now=now
        )
        == 0.0
    )


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        (None, {}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "1"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]},
            {"a": "1"},
            True,
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]},
            {"a": "1"},
            False,
        ),
    ],
)
def test_label_selector(selector, labels, expected):
    assert decisions.selector_matches(selector, labels) is expected
