from __future__ import annotations

from chaos.invariants import InvariantSettings
from chaos.invariants.pods import one_live_pod_per_node
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod

SETTINGS = InvariantSettings()


def test_two_live_pods_for_one_node_are_a_violation() -> None:
    b = HistoryBuilder()
    first = b.at(0).add("ADDED", pod("wf-a", phase="Running"))
    # Terminating but still running: it still counts as alive.
    b.at(1).add("MODIFIED", pod("wf-a", phase="Running", deleting=True))
    b.at(2).add("ADDED", pod("wf-other", node_id="wf-2"))
    second = b.at(3).add("ADDED", pod("wf-b", phase="Pending"))
    b.at(4).add("MODIFIED", pod("wf-b", phase="Running"))

    (found,) = one_live_pod_per_node(b.build(), SETTINGS)

    assert found.invariant == "one-live-pod-per-node"
    assert found.object.name == "wf-b"
    assert found.object.uid == "uid-wf-b"
    assert "wf-a" in found.message
    assert "wf-1" in found.message
    assert found.evidence.lines == (first + 1, second)


def test_a_replacement_after_the_first_pod_is_done_or_gone_is_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", pod("wf-a"))
    b.at(1).add("MODIFIED", pod("wf-a", phase="Failed"))
    b.at(2).add("ADDED", pod("wf-b"))
    b.at(3).add("DELETED", pod("wf-b"))
    b.at(4).add("ADDED", pod("wf-c"))
    # The same node id in another workflow is another node.
    b.at(5).add("ADDED", pod("other-c", wf="other"))

    assert one_live_pod_per_node(b.build(), SETTINGS) == []


def test_a_pod_missing_from_a_relisting_is_gone() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", pod("wf-a"))
    b.at(10).list_end("Pod")  # listing without wf-a: deleted during a gap
    b.at(11).add("ADDED", pod("wf-b"))

    assert one_live_pod_per_node(b.build(), SETTINGS) == []
