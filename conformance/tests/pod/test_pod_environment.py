"""PodEnvironment: environment, executor containers, podSpecPatch and script staging.

We test these aspects, on the one pod of `manifests/pod-environment.yaml` (a
script template with a user init container, a sidecar, the workflow's
podSpecPatch setting `terminationGracePeriodSeconds: 7` and the template's adding
a container and setting main's resources):

- every container the controller builds, init containers and sidecars included
  (not the one podSpecPatch adds: Argo patches after setting these), carries
  ARGO_CONTAINER_NAME (its own name), ARGO_NODE_ID, ARGO_WORKFLOW_NAME, an
  RFC 3339 ARGO_DEADLINE and a boolean ARGO_INCLUDE_SCRIPT_OUTPUT (WPC-POD-005);
- the executor containers run the profile's executor image, share one pull
  policy and carry ARGO_POD_NAME / ARGO_POD_UID as field references,
  ARGO_WORKFLOW_NAME and ARGO_WORKFLOW_UID (WPC-POD-006);
- every regular container carries ARGO_TERMINATION_GRACE_PERIOD_SECONDS=7
  (WPC-POD-007);
- both podSpecPatches apply; the added container is wrapped by the emissary like
  main, with its args unchanged; main gets the patched resources (WPC-POD-008);
- main's args end with `/argo/staging/script`, main mounts the emptyDir
  `argo-staging` at `/argo/staging`, and the script finds its file executable
  and holding `script.source` (WPC-POD-011).

Matrix: legacy and init-less; the workflow outcome is recorded for the
cross-layout comparison.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from conformance import contract
from conformance.harness.workload import pods

EXECUTOR_CONTAINERS = ("init", "wait", "supervisor")
EMISSARY = contract.EMISSARY
PATCH_ADDED = "patched"
"""The container the template's podSpecPatch adds. Argo v4.1 applies the patch
after it sets WPC-POD-005's variables (workflowpod.go), so the suite reads the
clause's "every container" as every container the controller builds."""
IDENTITY = ("ARGO_POD_NAME", "ARGO_POD_UID", "ARGO_WORKFLOW_NAME", "ARGO_WORKFLOW_UID")


def unwrapped(container: dict[str, Any], layout: str) -> list[str] | None:
    """The original command behind the emissary wrapper, or None if not wrapped."""
    command = container.get("command") or []
    if command[:2] != [EMISSARY[layout], "emissary"] or "--" not in command:
        return None
    return command[command.index("--") + 1 :]


def is_time(value: Any) -> bool:
    try:
        datetime.datetime.fromisoformat(str(value))
    except ValueError:
        return False
    return True


def common_env(container: dict[str, Any]) -> list[Any]:
    """WPC-POD-005's variables of one container (the last two as validity flags)."""
    env = pods.env_of(container)
    return [
        env.get("ARGO_CONTAINER_NAME"),
        env.get("ARGO_NODE_ID"),
        env.get("ARGO_WORKFLOW_NAME"),
        env.get("ARGO_INCLUDE_SCRIPT_OUTPUT") in ("true", "false"),
        is_time(env.get("ARGO_DEADLINE")),
    ]


@pytest.mark.conformance(
    short_name="PodEnvironment",
    clauses=["WPC-POD-005", "WPC-POD-006", "WPC-POD-007", "WPC-POD-008", "WPC-POD-011"],
)
def test_pod_containers_carry_environment_patches_and_the_staged_script(
    workflows, manifest, observations, kube_clients, namespace, layout, images
):
    executor_image = images["executor"]
    body = manifest()
    source = body["spec"]["templates"][0]["script"]["source"]
    name = workflows.submit(body)
    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    status, wf_uid = workflow["status"], workflow["metadata"]["uid"]
    assert status["phase"] == "Succeeded", f"workflow {name}: {status.get('message')!r}"
    node = status["nodes"][name]
    listing = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    )
    assert len(listing.items) == 1, [p.metadata.name for p in listing.items]
    pod = kube_clients.api.sanitize_for_serialization(listing.items[0])
    spec = pod["spec"]
    everything = [*(spec.get("initContainers") or []), *spec["containers"]]
    built = [c for c in everything if c["name"] != PATCH_ADDED]
    executors = [c for c in everything if c["name"] in EXECUTOR_CONTAINERS]
    containers = {c["name"]: c for c in spec["containers"]}
    main, patched = containers["main"], containers.get(PATCH_ADDED, {})
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    mounts = {m["mountPath"]: m["name"] for m in main.get("volumeMounts") or []}
    outputs = node.get("outputs") or {}
    params = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}
    # The API server defaults fieldRef.apiVersion to v1.
    field_refs = [
        {"fieldRef": {"apiVersion": "v1", "fieldPath": f"metadata.{f}"}}
        for f in ("name", "uid")
    ]
    checks = [
        (
            "WPC-POD-005",
            "common env of every container the controller built",
            {c["name"]: common_env(c) for c in built},
            {c["name"]: [c["name"], node["id"], name, True, True] for c in built},
        ),
        (
            "WPC-POD-006",
            "image and identity env of the executor containers",
            {
                c["name"]: [c.get("image"), *map(pods.env_of(c).get, IDENTITY)]
                for c in executors
            },
            {c["name"]: [executor_image, *field_refs, name, wf_uid] for c in executors}
            or "at least one executor container",
        ),
        (
            "WPC-POD-006",
            "distinct pull policies of the executor containers",
            len({c.get("imagePullPolicy") for c in executors}),
            1,
        ),
        (
            "WPC-POD-007",
            "pod terminationGracePeriodSeconds",
            spec.get("terminationGracePeriodSeconds"),
            7,
        ),
        (
            "WPC-POD-007",
            "ARGO_TERMINATION_GRACE_PERIOD_SECONDS of the regular containers",
            {
                n: pods.env_of(c).get("ARGO_TERMINATION_GRACE_PERIOD_SECONDS")
                for n, c in containers.items()
            },
            dict.fromkeys(containers, "7"),
        ),
        (
            "WPC-POD-008",
            "command behind the emissary and args of the added container",
            [unwrapped(patched, layout.layout), patched.get("args")],
            [["sh", "-c"], ["echo added by podSpecPatch"]],
        ),
        (
            "WPC-POD-008",
            "main's resources.requests",
            (main.get("resources") or {}).get("requests"),
            {"cpu": "11m", "memory": "17Mi"},
        ),
        (
            "WPC-POD-011",
            "main's last arg",
            (main.get("args") or [None])[-1],
            "/argo/staging/script",
        ),
        (
            "WPC-POD-011",
            "volume main mounts at /argo/staging",
            mounts.get("/argo/staging"),
            "argo-staging",
        ),
        (
            "WPC-POD-011",
            "argo-staging is an emptyDir",
            "emptyDir" in volumes.get("argo-staging", {}),
            True,
        ),
        (
            "WPC-POD-011",
            "the staged script as the script read it",
            (params.get("source") or "").strip(),
            source.strip(),
        ),
    ]
    problems = [
        f"{clause}: {what}: expected {want!r}, got {got!r}"
        for clause, what, got, want in checks
        if got != want
    ]
    assert not problems, f"pod {pod['metadata']['name']}:\n" + "\n".join(problems)
