"""KillSidecars: user sidecars are stopped once every main container has exited.

We test these aspects, in one workflow of three parallel steps whose pods get a
5 s grace period through `podSpecPatch` (so G = 5 s):

- `stopped`: a sidecar running `sleep 3600` is stopped and the node succeeds as
  `main` decided (WPC-KILL-001); a second sidecar that records every catchable
  signal in its termination log sees SIGTERM first and exits 143 on it
  (WPC-KILL-002);
- `stubborn`: a sidecar whose command ignores SIGTERM (it only notes when the
  signal came) is killed with SIGKILL (exit 137) no earlier than G and no
  later than G + 10 s (plus the timing tolerance) after that SIGTERM, and the
  node still succeeds (WPC-KILL-003);
- `failing`: `main` exits 1 next to a `sleep 3600` sidecar; the pod terminates
  within G plus the cleanup timeout and the node is `Failed` with `main`'s
  message (WPC-KILL-004).

Matrix: legacy and initless. The stubborn sidecar notes the SIGTERM's time in
whole epoch seconds and `finishedAt` has 1 s granularity: both truncate, so
the difference can never undercut G for a conformant implementation and the
lower bound needs no tolerance.
"""

from __future__ import annotations

import pytest

from conformance.harness.workload import pods
from conformance.harness.workload.workflows import named_node

GRACE = 5
"""terminationGracePeriodSeconds set by the manifest's podSpecPatch."""
SIGKILL_WINDOW = 10
"""WPC-KILL-003: the SIGKILL comes no later than G + 10 s after the SIGTERM."""


@pytest.mark.conformance(
    short_name="KillSidecars",
    clauses=["WPC-KILL-001", "WPC-KILL-002", "WPC-KILL-003", "WPC-KILL-004"],
)
def test_sidecars_are_stopped_after_main_exits_and_nodes_end_as_main_decided(
    workflows, manifest, kube_clients, namespace, timeouts, observations
):
    name = workflows.submit(manifest())

    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    by_step = pods.by_display_name(kube_clients, namespace, workflow)
    assert set(by_step) == {"stopped", "stubborn", "failing"}, (
        f"by_step: {sorted(by_step)}"
    )

    stopped = by_step["stopped"]
    # WPC-KILL-002 first: SIGTERM is the first signal the recorder's command receives
    # (a wrong signal also fails the sidecar, and so WPC-KILL-001's node, below).
    recorder = pods.terminated(stopped, "recorder")
    assert (recorder.exit_code, (recorder.message or "").split()) == (143, ["TERM"]), (
        f"WPC-KILL-002: recorder: exit code {recorder.exit_code}, "
        f"signals seen {recorder.message!r}"
    )

    # WPC-KILL-001: the sleeper stopped; the node is what main decided.
    assert pods.terminated(stopped, "main").exit_code == 0, "WPC-KILL-001: main's exit"
    pods.terminated(stopped, "sleeper")
    stopped_node = named_node(workflow, "stopped")
    assert (stopped_node["phase"], stopped_node.get("message", "")) == (
        "Succeeded",
        "",
    ), (
        f"WPC-KILL-001: node stopped is {stopped_node['phase']} {stopped_node.get('message')!r}"
    )

    # WPC-KILL-003: SIGKILL between G and G + 10 s after the SIGTERM, whose
    # time (epoch seconds) the sidecar noted in its termination log.
    stubborn = by_step["stubborn"]
    assert pods.terminated(stubborn, "main").exit_code == 0
    killed = pods.terminated(stubborn, "stubborn")
    noted = (killed.message or "").split()
    assert (killed.exit_code, noted[:1]) == (137, ["TERM"]), (
        f"WPC-KILL-003: stubborn sidecar: exit code {killed.exit_code}, "
        f"log {killed.message!r}"
    )
    waited = killed.finished_at.timestamp() - int(noted[1])
    limit = GRACE + SIGKILL_WINDOW + timeouts.timing_tolerance
    assert GRACE <= waited <= limit, (
        f"WPC-KILL-003: stubborn sidecar killed {waited:g} s after its SIGTERM; "
        f"expected between {GRACE} s and {limit:g} s"
    )
    assert named_node(workflow, "stubborn")["phase"] == "Succeeded"

    # WPC-KILL-004: main failed next to a running sidecar; the pod still ended.
    failing = by_step["failing"]
    main_failed = pods.terminated(failing, "main")
    last = max(
        pods.terminated(failing, s.name).finished_at
        for s in failing.status.container_statuses
    )
    took = (last - main_failed.finished_at).total_seconds()
    assert took <= GRACE + timeouts.cleanup, (
        f"WPC-KILL-004: pod {failing.metadata.name} took {took:g} s to terminate "
        "after main failed"
    )
    node = named_node(workflow, "failing")
    assert (node["phase"], node.get("message")) == (
        "Failed",
        "main: Error (exit code 1)",
    ), f"WPC-KILL-004: node failing is {node['phase']} {node.get('message')!r}"
    assert workflow["status"]["phase"] == "Failed"
