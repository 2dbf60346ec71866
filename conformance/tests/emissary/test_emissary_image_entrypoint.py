"""EmissaryImageEntrypoint: a container without `command` runs its image's ENTRYPOINT and CMD.

We test these aspects, with a private controller instance (the suite's
`dedicated_instance`) in the test's layout, whose configuration's `images` map
(set through the profile's `setConfig`) gives the tools image a made-up
ENTRYPOINT, `sh -c`, and a CMD (the image's real ENTRYPOINT is `/bin/sh`, with
no CMD; there is no registry to ask), and `manifests/emissary-image-entrypoint.yaml`
(two steps whose containers have no `command`; `own-args` sets `args`):

- each step's `main` container runs the emissary, and what follows the `--` of
  its command is exactly the made-up ENTRYPOINT; `image-cmd`, without `args`,
  gets the CMD as its args, and `own-args` keeps its own (WPC-EMISSARY-009);
- the workflow succeeds and each step's output parameter, written by the
  command that ran, shows that ENTRYPOINT ran with those args.

Matrix: legacy and init-less (the layout the instance runs in).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import step_pods

ENTRYPOINT = ["sh", "-c"]
CMD = ["printf 'ran %s' 'image cmd' > /tmp/out; cat /tmp/out"]
OWN_ARGS = ["printf 'ran %s' 'own args' > /tmp/out; cat /tmp/out"]


def main_containers(
    kube_clients: kube.Clients, namespace: str, workflow: str
) -> dict[str, dict[str, Any]]:
    """Step name -> its pod's `main` container."""
    found = {}
    for step, pod in step_pods(kube_clients, namespace, workflow).items():
        spec = kube_clients.api.sanitize_for_serialization(pod.spec)
        found[step] = next(
            (c for c in spec["containers"] if c["name"] == "main"), {"name": None}
        )
    return found


def behind_emissary(container: dict[str, Any]) -> list[str] | None:
    """The command after the emissary's `--`; None when not wrapped by the emissary."""
    command = container.get("command") or []
    if len(command) < 2 or command[1] != "emissary" or "--" not in command:
        return None
    return list(command[command.index("--") + 1 :])


@pytest.mark.conformance(
    short_name="EmissaryImageEntrypoint", clauses=["WPC-EMISSARY-009"]
)
def test_commandless_containers_run_the_entrypoint_and_cmd_of_the_images_map(
    dedicated_instance, workflows, scene, observations, images
):
    tools = images["tools"]
    dedicated_instance.set_config(
        "images", {tools: {"entrypoint": ENTRYPOINT, "cmd": CMD}}
    )
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    name = own.submit(scene.manifest())
    workflow = own.wait_completed(name)
    observations.record_workflow(workflow)

    mains = main_containers(scene.clients, scene.namespace, name)
    nodes = {
        n.get("displayName"): n
        for n in (workflow.get("status") or {}).get("nodes", {}).values()
    }

    def ran(step: str) -> object:
        params = (nodes.get(step, {}).get("outputs") or {}).get("parameters") or [{}]
        return params[0].get("value")

    checks = [
        (
            "phase of the workflow",
            workflow["status"]["phase"],
            "Succeeded",
        ),
        *(
            (
                f"{step}: main's command after the emissary's --",
                behind_emissary(mains.get(step, {})),
                ENTRYPOINT,
            )
            for step in ("image-cmd", "own-args")
        ),
        (
            "image-cmd: main's args (the CMD)",
            mains.get("image-cmd", {}).get("args"),
            CMD,
        ),
        (
            "own-args: main's args (its own)",
            mains.get("own-args", {}).get("args"),
            OWN_ARGS,
        ),
        ("image-cmd: output of what ran", ran("image-cmd"), "ran image cmd"),
        ("own-args: output of what ran", ran("own-args"), "ran own args"),
    ]
    problems = [
        f"WPC-EMISSARY-009: {what}: expected {want!r}, got {have!r}"
        for what, have, want in checks
        if have != want
    ]
    assert not problems, "\n".join(
        [*problems, f"workflow {name}: {workflow['status'].get('message')!r}"]
    )
