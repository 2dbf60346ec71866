from __future__ import annotations

from typing import Any

from chaos.invariants import InvariantSettings
from chaos.invariants.outputs import succeeded_nodes_have_outputs
from tests.chaos.histories import HistoryBuilder
from tests.chaos.histories import node
from tests.chaos.histories import workflow

SETTINGS = InvariantSettings()
MAIN = {
    "name": "main",
    "container": {"image": "busybox"},
    "outputs": {
        "parameters": [{"name": "result", "valueFrom": {"path": "/tmp/r"}}],
        "artifacts": [
            {"name": "report", "path": "/tmp/report"},
            {"name": "extra", "path": "/tmp/extra", "optional": True},
        ],
    },
}
FULL: dict[str, Any] = {
    "parameters": [{"name": "result", "value": "1"}],
    "artifacts": [{"name": "report"}, {"name": "main-logs"}],
}


def test_a_succeeded_node_missing_declared_outputs_is_a_violation() -> None:
    b = HistoryBuilder()
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Running")}, templates=[MAIN]))
    bad = b.at(1).add(
        "MODIFIED",
        workflow(
            nodes={
                "wf-1": node("Succeeded", outputs={"parameters": FULL["parameters"]})
            },
            templates=[MAIN],
        ),
    )
    # Filled in later: still reported, once (the window already existed).
    b.at(2).add(
        "MODIFIED",
        workflow(nodes={"wf-1": node("Succeeded", outputs=FULL)}, templates=[MAIN]),
    )

    (found,) = succeeded_nodes_have_outputs(b.build(), SETTINGS)

    assert found.invariant == "succeeded-nodes-have-outputs"
    assert found.object.name == "wf"
    assert "report" in found.message
    assert "extra" not in found.message
    assert "result" not in found.message
    assert found.evidence.lines == (bad,)
    assert found.evidence.resource_versions == ("102",)


def test_stored_templates_count_too() -> None:
    b = HistoryBuilder()
    stored = {"namespaced/wf/main": MAIN}
    b.at(0).add("ADDED", workflow(nodes={"wf-1": node("Succeeded")}, stored=stored))

    (found,) = succeeded_nodes_have_outputs(b.build(), SETTINGS)

    assert "report, result" in found.message


def test_succeeded_nodes_with_outputs_and_other_nodes_are_fine() -> None:
    b = HistoryBuilder()
    nodes = {
        "wf": node("Succeeded", type_="Steps", template="steps"),
        "wf-1": node("Succeeded", outputs=FULL),
        "wf-2": node("Failed"),
        "wf-3": node("Succeeded", template="not-found"),
        "wf-4": node("Succeeded", template="plain"),
    }
    plain = {"name": "plain", "container": {"image": "busybox"}}
    b.at(0).add("ADDED", workflow(nodes=nodes, templates=[MAIN, plain]))

    assert succeeded_nodes_have_outputs(b.build(), SETTINGS) == []
