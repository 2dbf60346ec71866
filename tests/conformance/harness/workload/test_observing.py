"""We test these aspects of observations:

- record_workflow() records phases, messages, exit codes and outputs by display name;
- run-specific names (workflow, node IDs, pod names) become stable placeholders,
  so two runs of one scenario compare equal.
"""

from __future__ import annotations

from typing import Any

from conformance.harness.workload.observations import Observations


def workflow(name: str, node_hash: str) -> dict[str, Any]:
    child = f"{name}-{node_hash}"
    return {
        "metadata": {"name": name},
        "status": {
            "phase": "Failed",
            "message": f"child '{child}' failed",
            "nodes": {
                name: {
                    "displayName": name,
                    "type": "Steps",
                    "phase": "Failed",
                    "message": f"child '{child}' failed",
                },
                child: {
                    "displayName": "main",
                    "templateName": "echo",
                    "type": "Pod",
                    "phase": "Failed",
                    "message": f"pod {name}-echo-{node_hash}: main: Error (exit code 1)",
                    "outputs": {
                        "exitCode": "1",
                        "parameters": [{"name": "out", "value": name}],
                    },
                },
            },
        },
    }


def test_workflow_observations_use_display_names_and_placeholders():
    obs = Observations()
    obs.record_workflow(workflow("hello-abcde", "1234567"))
    data = obs.to_json()
    assert data["workflow.message"] == "child '<node:main>' failed"
    assert data["nodes.<root>.type"] == "Steps"
    assert data["nodes.main.exitCode"] == "1"
    assert data["nodes.main.message"] == "pod <pod:main>: main: Error (exit code 1)"
    assert data["nodes.main.outputs.parameters.out"] == "<wf>"


def test_two_runs_of_one_scenario_compare_equal():
    first, second = Observations(), Observations()
    first.record_workflow(workflow("hello-abcde", "1234567"))
    second.record_workflow(workflow("hello-vwxyz", "7654321"))
    assert first.to_json() == second.to_json()
