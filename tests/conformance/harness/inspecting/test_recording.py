"""We test these aspects of the recording analyses (no cluster):

- pods_by_node() groups the uids of one workflow's pods by node ID and ignores
  other workflows' pods;
- phase_regressions() reports a completed workflow whose phase changes and a
  Succeeded node whose phase changes, and nothing for normal progress or
  deleted versions;
- settle_pod_counts() returns once every workflow has had exactly its pods on three
  polls in a row, and times out naming the last counts when a pod comes late or
  one is missing.
"""

from __future__ import annotations

import dataclasses

import pytest

from conformance.errors import WaitTimeout
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.inspecting import recording

FAST = dataclasses.replace(Timeouts(), cleanup=0.5, poll_interval=0.01)


def _pod(uid: str, workflow: str, node: str) -> recording.Event:
    return recording.Event(
        "ADDED",
        {
            "metadata": {
                "uid": uid,
                "labels": {"workflows.argoproj.io/workflow": workflow},
                "annotations": {"workflows.argoproj.io/node-id": node},
            }
        },
    )


def _wf(kind: str, phase: str, nodes: dict[str, str]) -> recording.Event:
    return recording.Event(
        kind,
        {
            "metadata": {"name": "wf"},
            "status": {
                "phase": phase,
                "nodes": {n: {"displayName": n, "phase": p} for n, p in nodes.items()},
            },
        },
    )


def test_pods_by_node_groups_uids_of_one_workflow():
    events = [_pod("a", "wf", "n1"), _pod("a", "wf", "n1"), _pod("b", "wf", "n1")]
    events += [_pod("c", "wf", "n2"), _pod("d", "other", "n1")]
    assert recording.pods_by_node(events, "wf") == {"n1": {"a", "b"}, "n2": {"c"}}


def test_normal_progress_is_no_regression():
    events = [
        _wf("ADDED", "Running", {"s": "Pending"}),
        _wf("MODIFIED", "Running", {"s": "Running"}),
        _wf("MODIFIED", "Succeeded", {"s": "Succeeded"}),
        _wf("MODIFIED", "Succeeded", {"s": "Succeeded"}),
        _wf("DELETED", "Running", {"s": "Running"}),
    ]
    assert recording.phase_regressions(events, "wf") == []


def test_changes_after_completion_and_of_succeeded_nodes_are_regressions():
    events = [
        _wf("ADDED", "Running", {"s": "Succeeded"}),
        _wf("MODIFIED", "Failed", {"s": "Running"}),
        _wf("MODIFIED", "Running", {"s": "Succeeded"}),
    ]
    assert recording.phase_regressions(events, "wf") == [
        "node s went from Succeeded to Running",
        "workflow phase Failed became Running",
    ]


class _Polled:
    """A recorder whose events grow, read after read, along a script."""

    def __init__(self, *reads: list[recording.Event]) -> None:
        self.reads = list(reads)

    def events(self) -> list[recording.Event]:
        return self.reads.pop(0) if len(self.reads) > 1 else self.reads[0]


def test_settle_pod_counts_returns_once_each_workflow_has_its_pods():
    pods = [_pod("a", "wf", "n1"), _pod("b", "wf", "n2"), _pod("c", "other", "n1")]
    recorder = _Polled(pods[:1], pods)
    recording.settle_pod_counts(recorder, {"wf": 2, "other": 1}, FAST)


def test_settle_pod_counts_fails_on_a_pod_that_came_late():
    two = [_pod("a", "wf", "n1"), _pod("b", "wf", "n2")]
    recorder = _Polled(two, two, [*two, _pod("late", "wf", "n3")])
    with pytest.raises(WaitTimeout, match=r"pods per workflow \{'wf': 3\}"):
        recording.settle_pod_counts(recorder, {"wf": 2}, FAST)
