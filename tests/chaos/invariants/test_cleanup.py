from __future__ import annotations

from chaos.invariants import InvariantSettings
from chaos.invariants.cleanup import no_finalizer_after_completion
from chaos.invariants.cleanup import no_orphan_pods
from chaos.invariants.cleanup import taskresults_cleaned_up
from tests.chaos.histories import FINALIZER
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import pod
from tests.chaos.histories import taskresult
from tests.chaos.histories import workflow

SETTINGS = InvariantSettings()


def test_a_finalizer_kept_past_the_grace_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a", finalizers=(FINALIZER,)))
    done = b.at(10).add("MODIFIED", workflow(phase="Succeeded"))
    last = b.at(11).add(
        "MODIFIED", pod("wf-a", phase="Succeeded", finalizers=(FINALIZER,))
    )
    b.at(41).add("MODIFIED", workflow(phase="Succeeded"))

    (found,) = no_finalizer_after_completion(b.build(), SETTINGS)

    assert found.invariant == "no-finalizer-after-completion"
    assert (found.object.kind, found.object.name) == ("Pod", "wf-a")
    assert found.message == (
        f"still holds {FINALIZER} 31.0 s after workflow wf became Succeeded "
        f"(grace {SETTINGS.finalizer_grace_seconds:g} s)"
    )
    assert found.evidence.lines == (done, last)


def test_a_finalizer_kept_after_the_workflow_was_deleted_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a", finalizers=(FINALIZER,), owner_uid="uid-wf"))
    gone = b.at(2).add("DELETED", workflow(phase="Running"))
    b.at(40).add("MODIFIED", pod("wf-a", finalizers=(FINALIZER,), deleting=True))

    (found,) = no_finalizer_after_completion(b.build(), SETTINGS)

    assert "was deleted" in found.message
    assert found.evidence.lines[0] == gone


def test_a_finalizer_released_or_within_the_grace_is_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a", finalizers=(FINALIZER,)))
    b.at(2).add("ADDED", pod("wf-b", node_id="wf-2", finalizers=(FINALIZER,)))
    b.at(10).add("MODIFIED", workflow(phase="Succeeded"))
    b.at(12).add("MODIFIED", pod("wf-a", phase="Succeeded"))
    b.at(20).add("MODIFIED", workflow(phase="Succeeded"))  # end: 10 s after

    assert no_finalizer_after_completion(b.build(), SETTINGS) == []


def test_a_pod_outliving_its_deleted_workflow_is_an_orphan() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(1).add("ADDED", pod("wf-a"))
    gone = b.at(5).add("DELETED", workflow(phase="Running"))
    last = b.at(40).add("MODIFIED", pod("wf-a", deleting=True))

    (found,) = no_orphan_pods(b.build(), SETTINGS)

    assert found.invariant == "no-orphan-pods"
    assert found.object.name == "wf-a"
    assert found.message == (
        "still exists 35.0 s after workflow wf was deleted "
        f"(grace {SETTINGS.orphan_grace_seconds:g} s)"
    )
    assert found.evidence.lines == (gone, last)


def test_pods_deleted_with_their_workflow_or_within_the_grace_are_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(0).add("ADDED", workflow("slow", phase="Running"))
    b.at(1).add("ADDED", pod("wf-a"))
    b.at(1).add("ADDED", pod("slow-a", wf="slow"))
    b.at(2).add("ADDED", pod("unknown-a", wf="unknown"))  # never seen: not judged
    b.at(5).add("DELETED", workflow(phase="Running"))
    b.at(6).add("DELETED", pod("wf-a"))
    b.at(30).add("DELETED", workflow("slow", phase="Running"))
    b.at(50).add("MODIFIED", pod("slow-a", wf="slow", deleting=True))

    assert no_orphan_pods(b.build(), SETTINGS) == []


def test_a_recreated_workflow_does_not_adopt_the_old_ones_pods() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(uid="old"))
    b.at(1).add("ADDED", pod("wf-a", owner_uid="old"))
    b.at(2).add("DELETED", workflow(uid="old"))
    b.at(3).add("ADDED", workflow(uid="new", phase="Running"))
    b.at(60).add("MODIFIED", workflow(uid="new", phase="Running"))

    (found,) = no_orphan_pods(b.build(), SETTINGS)

    assert found.object.name == "wf-a"


def test_a_taskresult_left_after_completion_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    result = b.at(3).add("ADDED", taskresult("wf-1"))
    done = b.at(5).add("MODIFIED", workflow(phase="Error"))
    b.at(50).add("MODIFIED", workflow(phase="Error"))

    (found,) = taskresults_cleaned_up(b.build(), SETTINGS)

    assert found.invariant == "taskresults-cleaned-up"
    assert (found.object.kind, found.object.name) == ("WorkflowTaskResult", "wf-1")
    assert found.message == (
        "still exists 45.0 s after workflow wf became Error "
        f"(grace {SETTINGS.taskresult_grace_seconds:g} s)"
    )
    assert found.evidence.lines == (result, done)


def test_taskresults_deleted_after_completion_are_fine() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(phase="Running"))
    b.at(3).add("ADDED", taskresult("wf-1"))
    b.at(4).add("ADDED", taskresult("wf-2"))
    b.at(5).add("MODIFIED", workflow(phase="Succeeded"))
    b.at(6).add("DELETED", taskresult("wf-1"))
    b.at(7).list_end("WorkflowTaskResult")  # a re-listing without wf-2
    b.at(50).add("MODIFIED", workflow(phase="Succeeded"))

    assert taskresults_cleaned_up(b.build(), SETTINGS) == []
