"""InitlessPodShape: the init-less pod, container by container.

We test these aspects, on the pod of `manifests/initless-pod-shape.yaml` (a
container template with two user init containers and two sidecars, main running
as a non-root user) built by a controller with `initlessPod` enabled:

- the pod is in the init-less layout: no Argo init container, `supervisor`,
  no `wait` (WPC-LAYOUT-002);
- `initContainers` are just the user init containers, in order, each mounting
  `/var/run/argo`; `containers` are `supervisor`, `main`, then the sidecars in
  order (WPC-INITLESS-001);
- `supervisor` runs `argoexec supervisor <logopts>` from the executor image,
  carries `ARGO_INITLESS_POD=true` and `ARGO_TEMPLATE`, mounts `/var/run/argo`
  and `/tmp` (subPath = its index) (WPC-INITLESS-002);
- the image volume `argoexec-bin` has the supervisor's image and pull policy
  (WPC-INITLESS-003);
- main and the sidecars run `/argo-bin/bin/argoexec emissary <logopts> -- <their
  command>` with unchanged args and mount `argoexec-bin` read-only at `/argo-bin`
  and `/var/run/argo` (WPC-INITLESS-004);
- main carries `ARGO_WAIT_FOR_READY=true` and no `ARGO_TEMPLATE`
  (WPC-INITLESS-005);
- from main's own user command: `/argo-bin/bin/argoexec` is executable and
  `/var/run/argo/template` holds the template JSON (WPC-INITLESS-007).

Sidecars' `ARGO_WAIT_FOR_READY` is a SHOULD, checked by InitlessSidecarReadyWait.
Matrix: init-less only.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness import pods

EMISSARY = contract.EMISSARY[contract.INITLESS]
SIDECARS = ["side-a", "side-b"]
USER_INITS = ["first-init", "second-init"]


def is_shape_template(text: Any) -> bool:
    return pods.is_template_json(text, name="shape")


@pytest.mark.conformance(
    short_name="InitlessPodShape",
    clauses=[
        "WPC-LAYOUT-002",
        "WPC-INITLESS-001",
        "WPC-INITLESS-002",
        "WPC-INITLESS-003",
        "WPC-INITLESS-004",
        "WPC-INITLESS-005",
        "WPC-INITLESS-007",
    ],
)
def test_initless_pod_has_supervisor_image_volume_and_no_argo_init(
    workflows, manifest, observations, kube_clients, namespace, images
):
    executor_image = images["executor"]
    body = manifest()
    declared = body["spec"]["templates"][0]
    name = workflows.submit(body)
    workflow = workflows.wait_completed(name)
    observations.record_workflow(workflow)
    status = workflow["status"]
    listing = kube_clients.core.list_namespaced_pod(
        namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    )
    assert len(listing.items) == 1, [p.metadata.name for p in listing.items]
    pod = kube_clients.api.sanitize_for_serialization(listing.items[0])
    spec = pod["spec"]
    inits, regular = spec.get("initContainers") or [], spec["containers"]
    ctr = {c["name"]: c for c in [*inits, *regular]}
    sup = ctr.get("supervisor", {})
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    mounts = {
        n: {m["mountPath"]: m for m in c.get("volumeMounts") or []}
        for n, c in ctr.items()
    }
    user = {
        "main": declared["container"],
        **{s["name"]: s for s in declared["sidecars"]},
    }
    node = status["nodes"].get(name, {})
    outputs = node.get("outputs") or {}
    params = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}
    checks = [
        (
            "WPC-LAYOUT-002",
            "Argo init containers / containers named supervisor, wait",
            [
                [
                    c["name"]
                    for c in inits
                    if c["name"] == "init" or c["name"].startswith("init-artifact-")
                ],
                "supervisor" in ctr,
                "wait" in ctr,
            ],
            [[], True, False],
        ),
        (
            "WPC-INITLESS-001",
            "init container names",
            [c["name"] for c in inits],
            USER_INITS,
        ),
        (
            "WPC-INITLESS-001",
            "volume at /var/run/argo in the user init containers",
            {
                n: mounts.get(n, {}).get("/var/run/argo", {}).get("name")
                for n in USER_INITS
            },
            dict.fromkeys(USER_INITS, "var-run-argo"),
        ),
        (
            "WPC-INITLESS-001",
            "container names",
            [c["name"] for c in regular],
            ["supervisor", "main", *SIDECARS],
        ),
        (
            "WPC-INITLESS-002",
            "supervisor's image, command and ARGO_INITLESS_POD",
            [
                sup.get("image"),
                (sup.get("command") or [])[:2],
                "--" in (sup.get("command") or []),
                pods.env_of(sup).get("ARGO_INITLESS_POD"),
            ],
            [executor_image, ["argoexec", "supervisor"], False, "true"],
        ),
        (
            "WPC-INITLESS-002",
            "supervisor's ARGO_TEMPLATE is a template",
            is_shape_template(pods.env_of(sup).get("ARGO_TEMPLATE")),
            True,
        ),
        (
            "WPC-INITLESS-002",
            "supervisor's mounts at /var/run/argo and /tmp (volume, subPath)",
            [
                [
                    mounts.get("supervisor", {}).get(p, {}).get(k)
                    for k in ("name", "subPath")
                ]
                for p in ("/var/run/argo", "/tmp")
            ],
            [
                ["var-run-argo", None],
                ["tmp-dir-argo", str(regular.index(sup)) if sup else "0"],
            ],
        ),
        (
            "WPC-INITLESS-003",
            "the argoexec-bin volume",
            volumes.get("argoexec-bin"),
            {
                "name": "argoexec-bin",
                "image": {
                    "reference": sup.get("image"),
                    "pullPolicy": sup.get("imagePullPolicy"),
                },
            },
        ),
        (
            "WPC-INITLESS-004",
            "original command and args of main and the sidecars",
            {n: pods.behind_emissary(ctr.get(n, {}), EMISSARY) for n in user},
            {n: [c.get("command"), c.get("args")] for n, c in user.items()},
        ),
        (
            "WPC-INITLESS-004",
            "mounts of main and the sidecars at /argo-bin (volume, readOnly) and /var/run/argo",
            {
                n: [
                    mounts.get(n, {}).get("/argo-bin", {}).get("name"),
                    mounts.get(n, {}).get("/argo-bin", {}).get("readOnly"),
                    mounts.get(n, {}).get("/var/run/argo", {}).get("name"),
                ]
                for n in user
            },
            {n: ["argoexec-bin", True, "var-run-argo"] for n in user},
        ),
        (
            "WPC-INITLESS-005",
            "main's ARGO_WAIT_FOR_READY / has ARGO_TEMPLATE",
            [
                pods.env_of(ctr.get("main", {})).get("ARGO_WAIT_FOR_READY"),
                "ARGO_TEMPLATE" in pods.env_of(ctr.get("main", {})),
            ],
            ["true", False],
        ),
        (
            "WPC-INITLESS-007",
            "node of main's check that /argo-bin/bin/argoexec is executable",
            [node.get("phase"), node.get("message", "")],
            ["Succeeded", ""],
        ),
        (
            "WPC-INITLESS-007",
            "/var/run/argo/template as main read it after READY",
            is_shape_template(params.get("template"))
            and params.get("template") != "offloaded",
            True,
        ),
    ]
    problems = [
        f"{clause}: {what}: expected {want!r}, got {got!r}"
        for clause, what, got, want in checks
        if got != want
    ]
    assert not problems, f"pod {pod['metadata']['name']}:\n" + "\n".join(problems)
