"""KillInjectedSidecar: containers added by an admission webhook are stopped by exec.

We test these aspects, with the suite's injecting webhook
(`conformance.harness.stage.injecting`) appending a container `injected` whose shell PID 1
traps SIGTERM, appends `TERM` to its termination log and exits 143:

- `default`: once `main` has exited, the controller delivers SIGTERM to the
  injected container's PID 1 through `pods/exec`; it stops within the cleanup
  timeout and the node succeeds as `main` decided (WPC-KILL-005);
- `custom`: the pod carries `workflows.argoproj.io/kill-cmd-injected` (through
  the template's metadata); the controller runs that command instead, with
  `%d` replaced by 15, and the command's own line comes first in the
  termination log (WPC-KILL-006).

Matrix: legacy and initless.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.harness.stage import injecting
from conformance.harness.workload import pods

INJECTED_COMMAND = [
    "/bin/sh",
    "-c",
    "trap 'echo TERM >> /dev/termination-log; exit 143' TERM; sleep 3600 & wait $!",
]
KILL_CMD = "workflows.argoproj.io/kill-cmd-injected"


def _tools_image(doc: dict[str, Any]) -> str:
    return str(
        next(
            t["container"]["image"]
            for t in doc["spec"]["templates"]
            if "container" in t
        )
    )


@pytest.mark.conformance(
    short_name="KillInjectedSidecar", clauses=["WPC-KILL-005", "WPC-KILL-006"]
)
def test_injected_sidecars_are_signalled_through_exec_and_kill_cmd_annotation(
    workflows, manifest, kube_clients, namespace, test_labels, timeouts, observations
):
    doc = manifest()
    with injecting.injected_sidecar(
        kube_clients,
        namespace=namespace,
        labels=test_labels,
        image=_tools_image(doc),
        command=INJECTED_COMMAND,
        timeouts=timeouts,
    ):
        name = workflows.submit(doc)
        workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    by_step = pods.by_display_name(kube_clients, namespace, workflow)
    assert set(by_step) == {"default", "custom"}, f"by_step: {sorted(by_step)}"
    for step, pod in by_step.items():
        names = [c.name for c in pod.spec.containers]
        assert injecting.CONTAINER in names, f"{step}: webhook did not inject: {names}"

    # WPC-KILL-005: SIGTERM reached the injected PID 1, which recorded it.
    default = by_step["default"]
    main_done = pods.terminated(default, "main")
    injected = pods.terminated(default, injecting.CONTAINER)
    assert (injected.exit_code, (injected.message or "").split("\n")[0]) == (
        143,
        "TERM",
    ), (
        f"WPC-KILL-005: injected: exit code {injected.exit_code}, log {injected.message!r}"
    )
    took = (injected.finished_at - main_done.finished_at).total_seconds()
    assert took <= timeouts.cleanup + timeouts.timing_tolerance, (
        f"WPC-KILL-005: the injected container stopped {took:g} s after main finished"
    )

    # WPC-KILL-006: the annotation's command ran, with %d = 15.
    custom = by_step["custom"]
    assert KILL_CMD in (custom.metadata.annotations or {})
    injected = pods.terminated(custom, injecting.CONTAINER)
    lines = (injected.message or "").splitlines()
    assert (lines[:1], "TERM" in lines) == (["kill-cmd 15"], True), (
        f"WPC-KILL-006: injected (kill-cmd): exit code {injected.exit_code}, "
        f"log {injected.message!r}"
    )

    for step in ("default", "custom"):
        node = next(
            n for n in workflow["status"]["nodes"].values() if n["displayName"] == step
        )
        assert (node["phase"], node.get("message", "")) == ("Succeeded", ""), (
            f"{step}: {node['phase']} {node.get('message')!r}"
        )
    assert workflow["status"]["phase"] == "Succeeded"
