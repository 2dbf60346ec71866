"""InitlessArtifactPlugins: artifact plugins run as sidecars of the init-less pod.

We test these aspects, on a private controller instance (`dedicated_instance`)
whose configuration (through the profile's `setConfig`) registers an artifact
driver plugin `wpc-plugin` served by the tools image, and gives that image an
entrypoint in the `images` map (there is no registry to ask). One template
uses the plugin for an input and an output artifact; only the pod's shape is
observed, so the plugin need not work:

- exactly one `artifact-plugin-wpc-plugin` container, no `init-artifact-*`
  container, and no other plugin container;
- it runs `/argo-bin/bin/argoexec artifact-plugin-sidecar ... -- <entrypoint>
  /tmp/artifact-plugins/wpc-plugin/socket` and mounts the `argoexec-bin`
  volume read-only at `/argo-bin`;
- `supervisor` carries ARGO_ARTIFACT_PLUGIN_NAMES=artifact-plugin-wpc-plugin
  and ARGO_INPUT_ARTIFACT_PLUGIN_NAMES=wpc-plugin (WPC-INITLESS-011).

Matrix: init-less only. Implementations claim ARTIFACT_PLUGINS to run it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance import contract
from conformance.harness import NotYet
from conformance.harness import until
from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import Workflows
from conformance.harness.workload.workflows import workflow_pods

PLUGIN = "wpc-plugin"
CONTAINER = f"artifact-plugin-{PLUGIN}"
ENTRYPOINT = ["/bin/probe", "plugin"]
SOCKET = f"/tmp/artifact-plugins/{PLUGIN}/socket"


def _pod_spec(
    kube_clients: kube.Clients, wfs: Workflows, namespace: str, workflow: str
) -> Any:
    """The workflow's pod spec; or its status, if it ended without a pod."""
    pods = workflow_pods(kube_clients, namespace, workflow)
    if pods:
        return kube_clients.api.sanitize_for_serialization(pods[0].spec)
    status = wfs.get(workflow).get("status") or {}
    if status.get("phase") in contract.COMPLETED:
        return {"ended without a pod": status}
    return NotYet(f"no pod of workflow {workflow} yet; phase {status.get('phase')!r}")


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


@pytest.mark.conformance(
    short_name="InitlessArtifactPlugins", clauses=["WPC-INITLESS-011"]
)
def test_one_plugin_sidecar_per_plugin_and_its_names_on_the_supervisor(
    dedicated_instance, workflows, scene, images
):
    tools = images["tools"]
    dedicated_instance.set_config("images", {tools: {"entrypoint": ENTRYPOINT}})
    dedicated_instance.set_config("artifactDrivers", [{"name": PLUGIN, "image": tools}])
    own = dataclasses.replace(workflows, instance=dedicated_instance.instance)
    name = own.submit(scene.manifest(plugin=PLUGIN))

    spec = until(
        lambda: _pod_spec(scene.clients, own, scene.namespace, name),
        timeout=scene.timeouts.pod_created,
        interval=scene.timeouts.poll_interval,
        describe=f"the pod of workflow {name} to be created",
    )
    assert "ended without a pod" not in spec, f"WPC-INITLESS-011: {spec}"
    containers = {c["name"]: c for c in spec["containers"]}
    init_names = [c["name"] for c in spec.get("initContainers") or []]
    plugin_names = [n for n in containers if n.startswith("artifact-plugin-")]
    problems = []
    if plugin_names != [CONTAINER]:
        problems.append(f"plugin containers {plugin_names}, expected [{CONTAINER!r}]")
    stray = [n for n in [*init_names, *containers] if n.startswith("init-artifact-")]
    if stray:
        problems.append(f"init-artifact containers present: {stray}")
    sidecar = containers.get(CONTAINER, {})
    command = [*(sidecar.get("command") or []), *(sidecar.get("args") or [])]
    if command[:2] != ["/argo-bin/bin/argoexec", "artifact-plugin-sidecar"]:
        problems.append(f"{CONTAINER} command starts {command[:2]}")
    if "--" not in command or command[command.index("--") + 1 :] != [
        *ENTRYPOINT,
        SOCKET,
    ]:
        problems.append(
            f"{CONTAINER} command {command}: expected -- {ENTRYPOINT} {SOCKET}"
        )
    mounts = {m["mountPath"]: m for m in sidecar.get("volumeMounts") or []}
    bin_mount = mounts.get("/argo-bin", {})
    if bin_mount.get("name") != "argoexec-bin" or not bin_mount.get("readOnly"):
        problems.append(f"{CONTAINER} /argo-bin mount {bin_mount or None}")
    env = _env(containers.get("supervisor", {}))
    for key, want in (
        ("ARGO_ARTIFACT_PLUGIN_NAMES", CONTAINER),
        ("ARGO_INPUT_ARTIFACT_PLUGIN_NAMES", PLUGIN),
    ):
        if env.get(key) != want:
            problems.append(f"supervisor {key}={env.get(key)!r}, expected {want!r}")
    assert not problems, "WPC-INITLESS-011:\n" + "\n".join(problems)
