"""We test how two runs of one workflow are normalised, compared and judged.

Generated names must never show up as a difference (two runs of one manifest
always get different names), while every field the issue names (workflow
phase and message, node structure, node phase and message, outputs, exit
codes) must; known files fail nothing but are still reported.
"""

from __future__ import annotations

import pytest

from conformance.errors import DataError
from wpc.differential import comparing
from wpc.differential import outcomes
from wpc.differential import reporting
from wpc.differential import results
from wpc.differential.results import SideRun


def _node(wf: str, suffix: str, node_id: str, **fields) -> tuple[str, dict]:
    return node_id, {
        "id": node_id,
        "name": f"{wf}{suffix}",
        "displayName": suffix.rsplit(".", 1)[-1] or wf,
        **fields,
    }


def _steps_workflow(
    wf: str, ids: tuple[str, str, str], *, phase="Failed", exit_code="2"
) -> dict:
    root, group, leaf = ids
    return {
        "metadata": {"name": wf},
        "status": {
            "phase": phase,
            "message": f"child '{leaf}' failed",
            "nodes": dict(
                [
                    _node(wf, "", root, type="Steps", phase=phase, children=[group]),
                    _node(
                        wf, "[0]", group, type="StepGroup", phase=phase, children=[leaf]
                    ),
                    _node(
                        wf,
                        "[0].step",
                        leaf,
                        type="Pod",
                        phase=phase,
                        message=f"pod {wf}-step-{leaf[-10:]} failed",
                        outputs={
                            "exitCode": exit_code,
                            "parameters": [{"name": "who", "value": f"{wf} ran"}],
                            "artifacts": [
                                {"name": "z", "s3": {"key": "k"}},
                                {"name": "a"},
                            ],
                        },
                    ),
                ]
            ),
        },
    }


A = _steps_workflow(
    "steps-abcde", ("steps-abcde", "steps-abcde-1111111111", "steps-abcde-2222222222")
)
B = _steps_workflow(
    "steps-vwxyz", ("steps-vwxyz", "steps-vwxyz-3333333333", "steps-vwxyz-9999999999")
)


def test_generated_names_and_node_ids_normalise_away():
    a, b = outcomes.normalise(A), outcomes.normalise(B)
    assert a == b
    assert a["message"] == "child '<node <wf>[0].step>' failed"
    leaf = a["nodes"]["<wf>[0].step"]
    assert leaf["message"] == "pod <wf>-step-<hash> failed"
    assert leaf["outputs"] == {
        "parameters": {"who": "<wf> ran"},
        "artifacts": ["a", "z"],
        "exitCode": "2",
    }
    assert a["nodes"]["<wf>"]["children"] == ["<wf>[0]"]
    assert comparing.compare(a, b) == []


def test_each_field_that_differs_is_one_difference_with_both_values():
    a = outcomes.normalise(A)
    b = outcomes.normalise(
        _steps_workflow(
            "s-2", ("s-2", "s-2-5555555555", "s-2-6666666666"), exit_code="3"
        )
    )
    b["phase"] = "Error"
    found = {d.path: (d.a, d.b) for d in comparing.compare(a, b)}
    assert found["phase"] == ("Failed", "Error")
    assert found["nodes[<wf>[0].step].outputs.exitCode"] == ("2", "3")
    assert len(found) == 2


def test_a_node_only_one_side_has_is_one_difference_and_children_show_the_shape():
    a = outcomes.normalise(A)
    b = outcomes.normalise(A)
    del b["nodes"]["<wf>[0].step"]
    b["nodes"]["<wf>[0]"]["children"] = []
    found = {d.path: (d.a, d.b) for d in comparing.compare(a, b)}
    assert found == {
        "nodes[<wf>[0]].children": (["<wf>[0].step"], []),
        "nodes[<wf>[0].step]": (comparing.PRESENT, comparing.ABSENT),
    }


def _run(outcome: dict, completed: bool = True) -> SideRun:
    return SideRun(workflow="w", completed=completed, outcome=outcome)


def test_verdicts_same_different_known_and_not_completed():
    same = outcomes.normalise(A)
    other = {**same, "phase": "Succeeded"}
    assert results.judge("f.yaml", _run(same), _run(same), known={}).verdict == "same"
    assert (
        results.judge("f.yaml", _run(same), _run(other), known={}).verdict
        == "different"
    )
    known = results.judge(
        "f.yaml", _run(same), _run(other), known={"f.yaml": "upstream bug"}
    )
    assert (known.verdict, known.reason, len(known.differences)) == (
        "known",
        "upstream bug",
        1,
    )
    stale = results.judge("f.yaml", _run(same), _run(same), known={"f.yaml": "gone"})
    assert (stale.verdict, stale.reason) == ("same", "gone")
    both_stuck = results.judge("f.yaml", _run(same, False), _run(same, False), known={})
    assert both_stuck.verdict == "not-completed"
    one_stuck = results.judge("f.yaml", _run(same), _run(same, False), known={})
    assert one_stuck.verdict == "different"
    assert one_stuck.differences[0].path == "completed"


def _document(found):
    side = reporting.Side(
        implementation="reference",
        version="0.1.0",
        profile="/p/reference.yaml",
        variables={},
        instance_id="wpc-diff-a-legacy",
        controller_namespace="wpc-diff-a-legacy",
        namespace="wpc-differential-legacy-a-1",
    )
    header = {
        "sessionId": "s",
        "startedAt": "2026-01-01T00:00:00+00:00",
        "durationSeconds": 1.0,
        "layout": "legacy",
        "corpus": "corpus",
        "known": None,
    }
    return reporting.document(found, header=header, a=side, b=side)


def test_the_report_matches_its_schema_and_its_table_names_every_difference(tmp_path):
    same = outcomes.normalise(A)
    other = {**same, "message": "x" * 200}
    found = [
        results.judge("a.yaml", _run(same), _run(same), known={}),
        results.judge("b.yaml", _run(same), _run(other), known={}),
        results.skipped("c.yaml", "image busybox not available offline"),
    ]
    data = _document(found)
    path = tmp_path / "out" / "r.yaml"
    reporting.write(data, path)
    assert path.is_file()
    assert data["summary"] == {
        "files": 3,
        "same": 1,
        "different": 1,
        "known": 0,
        "not-completed": 0,
        "skipped": 1,
    }
    assert "outcome" not in data["files"][0]["a"]
    assert data["files"][1]["a"]["outcome"] == same
    text = reporting.table(data)
    assert "b.yaml" in text
    assert "message" in text
    assert "..." in text
    assert "image busybox not available offline" in text
    assert "3 files, 1 same, 1 different, 0 known, 0 not-completed, 1 skipped" in text


def test_a_document_off_schema_is_refused():
    data = _document([])
    data["layout"] = "sideways"
    with pytest.raises(DataError, match="layout"):
        reporting.check(data)
