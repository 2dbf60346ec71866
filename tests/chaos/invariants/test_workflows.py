from __future__ import annotations

from chaos.invariants import InvariantSettings
from chaos.invariants.workflows import node_phases_monotonic
from chaos.invariants.workflows import terminal_within_deadline
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import node
from tests.chaos.histories import workflow

SETTINGS = InvariantSettings()


def test_workflow_terminal_after_the_deadline_is_a_violation() -> None:
    b = HistoryBuilder()
    first = b.at(0).add("ADDED", workflow(phase="Running"))
    done = b.at(301).add("MODIFIED", workflow(phase="Succeeded"))

    (found,) = terminal_within_deadline(b.build(), SETTINGS)

    assert found.invariant == "terminal-within-deadline"
    assert (found.object.kind, found.object.name, found.object.uid) == (
        "Workflow",
        "wf",
        "uid-wf",
    )
    assert "301.0 s" in found.message
    assert found.evidence.lines == (first, done)
    assert found.evidence.resource_versions == ("101", "102")


def test_workflow_still_running_at_the_end_is_a_violation() -> None:
    b = HistoryBuilder()
    first = b.at(0).add("ADDED", workflow(phase="Running"))
    last = b.at(5).add("MODIFIED", workflow(phase="Running"))

    (found,) = terminal_within_deadline(b.build(), SETTINGS)

    assert "not terminal when the history ends" in found.message
    assert found.evidence.lines == (first, last)


def test_workflow_terminal_in_time_or_deleted_in_time_is_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("RELIST", workflow(phase="Running"))
    b.at(12).add("MODIFIED", workflow(phase="Failed"))
    b.at(13).add("MODIFIED", workflow(phase="Failed"))
    b.at(20).add("ADDED", workflow("gone", phase="Running"))
    b.at(30).add("DELETED", workflow("gone", phase="Running"))

    assert terminal_within_deadline(b.build(), SETTINGS) == []


def test_the_deadline_is_a_setting() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(12).add("MODIFIED", workflow(phase="Succeeded"))

    tight = InvariantSettings(deadline_seconds=10)

    assert len(terminal_within_deadline(b.build(), tight)) == 1


def test_a_node_going_back_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Pending")}))
    done = b.at(1).add("MODIFIED", workflow(nodes={"wf-1": node("Succeeded")}))
    back = b.at(2).add("MODIFIED", workflow(nodes={"wf-1": node("Running")}))

    (found,) = node_phases_monotonic(b.build(), SETTINGS)

    assert found.invariant == "node-phases-monotonic"
    assert found.object.name == "wf"
    assert "wf-1" in found.message
    assert "from Succeeded to Running" in found.message
    assert found.evidence.lines == (done, back)
    assert found.evidence.resource_versions == ("102", "103")


def test_a_terminal_node_changing_terminal_phase_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Failed")}))
    b.at(1).add("MODIFIED", workflow(nodes={"wf-1": node("Succeeded")}))

    (found,) = node_phases_monotonic(b.build(), SETTINGS)

    assert "from Failed to Succeeded" in found.message


def test_an_unsynced_failed_node_may_still_become_error_but_not_go_back() -> None:
    """Upstream marks a completed node whose task result never came `pod deleted`."""
    unsynced = {**node("Failed"), "taskResultSynced": False}
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Running")}))
    b.at(1).add("MODIFIED", workflow(nodes={"wf-1": unsynced}))
    b.at(2).add("MODIFIED", workflow(nodes={"wf-1": node("Error")}))
    assert node_phases_monotonic(b.build(), SETTINGS) == []

    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": unsynced}))
    b.at(1).add("MODIFIED", workflow(nodes={"wf-1": node("Running")}))
    (found,) = node_phases_monotonic(b.build(), SETTINGS)
    assert "from Failed to Running" in found.message

    b = HistoryBuilder()  # once synced, Failed is final
    b.at(0).add(
        "ADDED", workflow(nodes={"wf-1": {**unsynced, "taskResultSynced": True}})
    )
    b.at(1).add("MODIFIED", workflow(nodes={"wf-1": node("Error")}))
    (found,) = node_phases_monotonic(b.build(), SETTINGS)
    assert "from Failed to Error" in found.message


def test_nodes_moving_forward_are_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Pending")}))
    b.at(1).add("MODIFIED", workflow(nodes={"wf-1": node("Running")}))
    b.at(2).add(
        "MODIFIED",
        workflow(nodes={"wf-1": node("Running"), "wf-2": node("Pending")}),
    )
    b.at(3).add(
        "MODIFIED",
        workflow(nodes={"wf-1": node("Succeeded"), "wf-2": node("Skipped")}),
    )
    b.at(4).add(
        "RELIST",
        workflow(nodes={"wf-1": node("Succeeded"), "wf-2": node("Skipped")}),
    )

    assert node_phases_monotonic(b.build(), SETTINGS) == []
