"""LayoutEquivalentOutcomes: the same workflow ends the same way in both layouts.

We test these aspects, on `manifests/layout-equivalent-outcomes.yaml` (an output
parameter, a script result, a tolerated failure with exit code 3):

- in each layout the workflow succeeds, the failing node is `Failed` with exit
  code "3", and the outputs are the expected ones (sanity, so that a comparison
  of two broken runs cannot pass);
- every workflow and node phase, node message, `outputs.parameters`,
  `outputs.result` and `outputs.exitCode` is recorded; the plugin compares the
  records of the two layouts after the run and fails this scenario's
  `[layout-divergence]` check on any difference that
  `conformance/divergences.yaml` does not declare (WPC-LAYOUT-006).

Matrix: legacy and init-less.
"""

from __future__ import annotations

import pytest


@pytest.mark.conformance(
    short_name="LayoutEquivalentOutcomes", clauses=["WPC-LAYOUT-006"]
)
def test_both_layouts_give_the_same_phases_messages_and_outputs(
    workflows, manifest, observations
):
    name, workflow = workflows.completed(manifest(), observations=observations)

    status = workflow["status"]
    nodes = {
        n.get("displayName"): n
        for n in status["nodes"].values()
        if n.get("type") == "Pod"
    }
    summary = {
        step: [
            node.get("phase"),
            (node.get("outputs") or {}).get("exitCode"),
            {
                p["name"]: p.get("value")
                for p in (node.get("outputs") or {}).get("parameters") or []
            },
            (node.get("outputs") or {}).get("result"),
        ]
        for step, node in nodes.items()
    }
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"
    assert summary == {
        "produce": ["Succeeded", "0", {"value": "produced value"}, None],
        "script": ["Succeeded", "0", {}, "scripted result"],
        "fail": ["Failed", "3", {}, None],
    }, f"pod nodes (phase, exit code, parameters, result): {summary}"
