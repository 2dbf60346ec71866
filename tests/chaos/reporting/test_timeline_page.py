from __future__ import annotations

from pathlib import Path

from chaos.history.records import History
from chaos.reporting.timeline_page import FaultWindow
from chaos.reporting.timeline_page import render_timeline
from chaos.reporting.timeline_page import write_timeline
from tests.chaos.histories import T0
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import node
from tests.chaos.histories import pod
from tests.chaos.histories import workflow


def _history() -> History:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Pending", name="step-one")}))
    b.at(1).add("ADDED", pod("wf-a", phase="Pending"))
    running = [{"name": "main", "state": {"running": {}}}]
    b.at(3).add("MODIFIED", pod("wf-a", containers=running))
    b.at(4).add("MODIFIED", workflow(nodes={"wf-1": node("Running", name="step-one")}))
    done = [
        {
            "name": "main",
            "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
        }
    ]
    b.at(9).add("MODIFIED", pod("wf-a", phase="Succeeded", containers=done))
    b.at(10).add(
        "MODIFIED", workflow(nodes={"wf-1": node("Succeeded", name="step-one")})
    )
    b.at(12).add("DELETED", pod("wf-a", phase="Succeeded", containers=done))
    return b.build()


def test_the_timeline_is_one_self_contained_page_with_the_fault_window() -> None:
    fault = FaultWindow(start=T0 + 2, end=T0 + 5, label="controller <killed>")

    page = render_timeline(_history(), fault, title="controller-restart / legacy")

    assert page.startswith("<!DOCTYPE html>")
    assert "controller-restart / legacy" in page
    assert 'class="fault"' in page
    assert "controller &lt;killed&gt;" in page
    assert "+2.0 s to +5.0 s" in page
    for label in ("wf-a", "wf-a / main", "wf / step-one"):
        assert f">{label}</text>" in page
    for state in ("Pending", "Running", "Succeeded", "terminated: Completed (0)"):
        assert f": {state}," in page
    # Self-contained: no script, no external stylesheet or image.
    assert "<script" not in page
    assert "href=" not in page
    assert "src=" not in page


def test_without_a_fault_window_nothing_is_shaded(tmp_path: Path) -> None:
    path = write_timeline(tmp_path / "t" / "timeline.html", _history())

    page = path.read_text(encoding="utf-8")
    assert 'class="fault"' not in page
    assert page.count('class="bar"') >= 6


def test_an_empty_history_still_renders() -> None:
    page = render_timeline(History(path="empty.jsonl", records=()))

    assert "0 history lines" in page


def test_a_wait_before_the_method_is_shaded_apart_from_the_fault() -> None:
    fault = FaultWindow(start=T0 + 2, end=T0 + 5, label="controller stopped")
    wait = FaultWindow(start=T0 - 8, end=T0 - 1, label="waited for the controller")

    page = render_timeline(_history(), fault, waits=[wait])

    assert page.count('<rect class="wait"') == 1
    assert page.count('<rect class="fault"') == 1
    assert (
        ">waited for the controller<title>wait: waited for the controller, +0.0 s"
        in page
    )
    assert "; 20.0 s;" in page  # the axis starts at the wait, 8 s before the history


def test_the_timeline_is_a_template_page_and_escapes_what_the_cluster_wrote() -> None:
    """The shared base page (plumbing.pages); a hostile node name stays text."""
    b = HistoryBuilder()
    hostile = '<script>alert("x")</script>'
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Running", name=hostile)}))
    b.at(5).add("MODIFIED", workflow(nodes={"wf-1": node("Failed", name=hostile)}))
    page = render_timeline(b.build(), FaultWindow(1.0, 2.0, "a & b"), title="t <1>")
    assert "<script" not in page
    assert "&lt;script&gt;" in page
    assert "a &amp; b" in page
    assert "<h1>t &lt;1&gt;</h1>" in page
    assert 'id="banner"' not in page, "a timeline has no verdict"
    assert "svg rect.fault" in page, "its stylesheet is inlined"
    assert "border-collapse: collapse" in page, "after the pages' shared one"
