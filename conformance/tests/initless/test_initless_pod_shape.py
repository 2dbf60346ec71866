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

import pytest

from conformance import contract
from conformance.harness.workload import pods
from conformance.harness.workload import shapes

EMISSARY = contract.EMISSARY[contract.INITLESS]
SIDECARS = ["side-a", "side-b"]
USER_INITS = ["first-init", "second-init"]
TEMPLATE_READER = "main read it after READY"


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
    workflows, manifest, observations, images
):
    shape = shapes.completed(workflows, manifest(), observations=observations)
    inits, regular, ctr = shape.inits, shape.regular, shape.containers
    volumes, mounts, user = shape.volumes, shape.mounts, shape.user
    sup = ctr.get("supervisor", {})
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
        shapes.init_names(shape, clause="WPC-INITLESS-001", want=USER_INITS),
        (
            "WPC-INITLESS-001",
            "volume at /var/run/argo in the user init containers",
            {
                n: mounts.get(n, {}).get("/var/run/argo", {}).get("name")
                for n in USER_INITS
            },
            dict.fromkeys(USER_INITS, "var-run-argo"),
        ),
        shapes.container_names(
            shape, clause="WPC-INITLESS-001", want=["supervisor", "main", *SIDECARS]
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
            [images["executor"], ["argoexec", "supervisor"], False, "true"],
        ),
        (
            "WPC-INITLESS-002",
            "supervisor's ARGO_TEMPLATE is a template",
            shape.holds_template(pods.env_of(sup).get("ARGO_TEMPLATE")),
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
        shapes.user_commands(shape, clause="WPC-INITLESS-004", emissary=EMISSARY),
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
        *shapes.user_command_checks(
            shape, clause="WPC-INITLESS-007", binary=EMISSARY, reader=TEMPLATE_READER
        ),
    ]
    shapes.verdict(shape, checks)
