"""Counting a step's pods over a whole run (`chaos.workflow.recorded`).

We test these aspects: a node name's step (retry suffix dropped; an exit hook
is `<step>.onExit`, apart from the step it hooks); the pods of a step are
counted by uid across every record of the history (re-listings and updates
of one pod count once; other steps and other workflows not at all); one pod
for the step's node passes, a second pod after the first finished fails
(the case the live-pod invariant cannot see), a pod for another node fails,
and no pod at all is Inconclusive; a history still being written is read up
to its last complete line.
"""

from __future__ import annotations

import pytest

from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.history.records import load_written
from chaos.pod.finding import step_of_node
from chaos.workflow import recorded
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod

NODE_NAME = "workflows.argoproj.io/node-name"


@pytest.mark.parametrize(
    ("node", "step"),
    [
        ("wf[0].work", "work"),
        ("wf[0].work(1)", "work"),
        ("wf[0].work.onExit", "work.onExit"),
        ("wf[0].work.onExit(0)", "work.onExit"),
        ("wf.main.t", "t"),
        ("", ""),
    ],
)
def test_a_node_name_gives_its_step(node, step):
    assert step_of_node(node) == step


def _pod(name, *, node, node_id, phase="Running", wf="wf"):
    body = pod(name, wf=wf, node_id=node_id, phase=phase)
    body["metadata"]["annotations"][NODE_NAME] = node
    return body


HOOK = "wf[0].work.onExit"


def test_one_pod_seen_many_times_is_one_pod():
    b = HistoryBuilder()
    b.at(0).add("RELIST", _pod("wf-hook-1", node=HOOK, node_id="wf-7"))
    b.at(1).list_end("Pod")
    b.at(2).add("MODIFIED", _pod("wf-hook-1", node=HOOK, node_id="wf-7"))
    b.at(3).add(
        "MODIFIED", _pod("wf-hook-1", node=HOOK, node_id="wf-7", phase="Succeeded")
    )
    b.at(4).add("ADDED", _pod("wf-work-1", node="wf[0].work", node_id="wf-6"))
    b.at(5).add("ADDED", _pod("other-hook", node=HOOK, node_id="wf-7", wf="other"))

    pods = recorded.step_pods(b.build(), workflow="wf", step="work.onExit")

    assert pods == [recorded.SeenPod("wf-hook-1", "uid-wf-hook-1", "wf-7", 1)]
    text = recorded.judge_one_pod(pods, step="work.onExit", node_ids={"wf-7"})
    assert "exactly one pod" in text
    assert "wf-hook-1" in text


def test_a_second_pod_after_the_first_finished_is_unexpected():
    b = HistoryBuilder()
    b.at(0).add("ADDED", _pod("wf-hook-1", node=HOOK, node_id="wf-7"))
    b.at(1).add(
        "MODIFIED", _pod("wf-hook-1", node=HOOK, node_id="wf-7", phase="Succeeded")
    )
    b.at(2).add(
        "DELETED", _pod("wf-hook-1", node=HOOK, node_id="wf-7", phase="Succeeded")
    )
    b.at(3).add("ADDED", _pod("wf-hook-2", node=HOOK, node_id="wf-7"))

    pods = recorded.step_pods(b.build(), workflow="wf", step="work.onExit")

    with pytest.raises(Unexpected, match=r"ran in 2 pods: wf-hook-1 .*wf-hook-2"):
        recorded.judge_one_pod(pods, step="work.onExit", node_ids={"wf-7"})


def test_a_pod_for_another_node_is_unexpected():
    pods = [recorded.SeenPod("wf-hook-1", "u1", "wf-8", 1)]
    with pytest.raises(Unexpected, match="not its node"):
        recorded.judge_one_pod(pods, step="work.onExit", node_ids={"wf-7"})


def test_no_pod_at_all_is_inconclusive():
    with pytest.raises(Inconclusive, match="recording missed it"):
        recorded.judge_one_pod([], step="work.onExit", node_ids={"wf-7"})


def test_a_history_being_written_is_read_to_its_last_whole_line(tmp_path):
    b = HistoryBuilder()
    b.at(0).add("ADDED", _pod("wf-hook-1", node=HOOK, node_id="wf-7"))
    b.at(1).add("ADDED", _pod("wf-hook-2", node=HOOK, node_id="wf-7"))
    path = tmp_path / "history.jsonl"
    text = b.text()
    path.write_text(text[: len(text) - 20], encoding="utf-8")

    history = load_written(path)

    assert [r.name for r in history.records] == ["wf-hook-1"]
