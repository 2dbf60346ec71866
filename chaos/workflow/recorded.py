"""Which pods a step had over a whole run, read from the recorded history.

The invariant `one-live-pod-per-node` catches two pods of one node alive at
once; a step that ran twice one after the other (an exit hook run again by a
restarted controller, its first pod long finished) breaks "at most one pod per
pod node, ever" (WPC-RECOVERY-002) without ever having two live pods. Only the
history, which saw every pod come and go, can count them. Pure functions: the
probe loads the history.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from chaos.argo import NODE_ID_ANNOTATION
from chaos.argo import WORKFLOW_LABEL
from chaos.errors import Inconclusive
from chaos.errors import Unexpected
from chaos.history.records import History
from chaos.pod.finding import step_of_node
from conformance import contract


@dataclass(frozen=True)
class SeenPod:
    """A pod the history saw: its name, uid, node, and the first line showing it."""

    name: str
    uid: str
    node_id: str
    line: int


def step_pods(history: History, *, workflow: str, step: str) -> list[SeenPod]:
    """Every distinct pod (by uid) of `step` in `workflow`, in order of first sight.

    A pod belongs to the step when its node-name annotation does
    (`chaos.pod.finding.step_of_node`: retry suffixes dropped, an exit hook is
    `<step>.onExit`), whatever node id it carries.
    """
    seen: dict[str, SeenPod] = {}
    for record in history.of_kind("Pod"):
        if record.type == "BOOKMARK" or not record.uid:
            continue
        if record.labels.get(WORKFLOW_LABEL) != workflow:
            continue
        if step_of_node(record.annotations.get(contract.NODE_NAME, "")) != step:
            continue
        seen.setdefault(
            record.uid,
            SeenPod(
                name=record.name,
                uid=record.uid,
                node_id=record.annotations.get(NODE_ID_ANNOTATION, ""),
                line=record.line,
            ),
        )
    return list(seen.values())


def judge_one_pod(pods: list[SeenPod], *, step: str, node_ids: Collection[str]) -> str:
    """Evidence that the step ran in exactly one pod, for its node; raise otherwise.

    `node_ids`: the ids of the step's Pod nodes in the workflow's status. No
    pod at all is `Inconclusive` (the step has a node, so the recording missed
    its pod); two or more, or one for another node, is `Unexpected`.
    """
    if not pods:
        raise Inconclusive(
            f"step {step}: the history shows no pod for it, though the workflow has "
            f"node(s) {sorted(node_ids)}: the recording missed it"
        )
    listed = ", ".join(
        f"{p.name} ({p.uid}, node {p.node_id}, line {p.line})" for p in pods
    )
    if len(pods) > 1:
        raise Unexpected(f"step {step} ran in {len(pods)} pods: {listed}")
    (pod,) = pods
    if pod.node_id not in node_ids:
        raise Unexpected(
            f"step {step}: its one pod ran for node {pod.node_id}, which is not its "
            f"node in the workflow's status ({sorted(node_ids)}): {listed}"
        )
    return f"step {step} ran in exactly one pod over the run: {listed}"
