"""LegacyPodShape: the legacy pod, container by container.

We test these aspects, on the pod of `manifests/legacy-pod-shape.yaml` (a
container template with two user init containers and two sidecars, main running
as a non-root user) built by a controller without `initlessPod` enabled:

- the pod is in the legacy layout: `init`, `wait`, no `supervisor`
  (WPC-LAYOUT-001);
- `initContainers` are `init` (executor image, `argoexec init <logopts>`) then
  the user init containers in order (WPC-LEGACY-001);
- `containers` are `wait` (executor image, `argoexec wait <logopts>`), `main`,
  then the sidecars in order (WPC-LEGACY-002);
- the emptyDirs `var-run-argo` and `tmp-dir-argo`; `/var/run/argo` mounted in
  every container; `/tmp` from `tmp-dir-argo` with the container's index as
  subPath in every executor-image container (WPC-LEGACY-003);
- main and the sidecars run `/var/run/argo/argoexec emissary <logopts> -- <their
  command>` with unchanged args (WPC-LEGACY-004);
- `ARGO_TEMPLATE` (template JSON or `offloaded`) on `init` only, not on main or
  wait (WPC-LEGACY-005);
- nothing of the init-less layout: no supervisor, no `argoexec-bin` volume, no
  `/argo-bin` mount, no `ARGO_WAIT_FOR_READY` (WPC-LEGACY-006);
- from main's own user command: `/var/run/argo/argoexec` is executable and
  `/var/run/argo/template` is readable by the non-root user and holds the
  template JSON (WPC-LEGACY-007).

Matrix: legacy only.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness.workload import pods
from conformance.harness.workload import shapes

EMISSARY = contract.EMISSARY[contract.LEGACY]
SIDECARS = ["side-a", "side-b"]
USER_INITS = ["first-init", "second-init"]
TEMPLATE_READER = "main's non-root user read it"


def argo_command(container: dict[str, Any], verb: str) -> bool:
    """`["argoexec", verb, <logopts without "--">...]`."""
    command = container.get("command") or []
    return command[:2] == ["argoexec", verb] and "--" not in command


def image_and_command(ctr: dict[str, Any], name: str) -> list[Any]:
    """[image, runs `argoexec <name>`] of the executor container `name`."""
    return [ctr.get(name, {}).get("image"), argo_command(ctr.get(name, {}), name)]


@pytest.mark.conformance(
    short_name="LegacyPodShape",
    clauses=[
        "WPC-LAYOUT-001",
        "WPC-LEGACY-001",
        "WPC-LEGACY-002",
        "WPC-LEGACY-003",
        "WPC-LEGACY-004",
        "WPC-LEGACY-005",
        "WPC-LEGACY-006",
        "WPC-LEGACY-007",
    ],
)
def test_legacy_pod_has_init_wait_and_wrapped_user_containers(
    workflows, manifest, observations, images
):
    executor_image = images["executor"]
    shape = shapes.completed(workflows, manifest(), observations=observations)
    inits, regular, ctr = shape.inits, shape.regular, shape.containers
    volumes, mounts = shape.volumes, shape.mounts
    executor_ctrs = [c for c in regular if c.get("image") == executor_image]
    checks = [
        (
            "WPC-LAYOUT-001",
            "init containers named init / containers named wait, supervisor",
            [
                "init" in ctr and ctr["init"] in inits,
                "wait" in ctr,
                "supervisor" in ctr,
            ],
            [True, True, False],
        ),
        shapes.init_names(shape, clause="WPC-LEGACY-001", want=["init", *USER_INITS]),
        (
            "WPC-LEGACY-001",
            "init's image and command",
            image_and_command(ctr, "init"),
            [executor_image, True],
        ),
        shapes.container_names(
            shape, clause="WPC-LEGACY-002", want=["wait", "main", *SIDECARS]
        ),
        (
            "WPC-LEGACY-002",
            "wait's image and command",
            image_and_command(ctr, "wait"),
            [executor_image, True],
        ),
        (
            "WPC-LEGACY-003",
            "var-run-argo and tmp-dir-argo are emptyDirs",
            [
                "emptyDir" in volumes.get(v, {})
                for v in ("var-run-argo", "tmp-dir-argo")
            ],
            [True, True],
        ),
        (
            "WPC-LEGACY-003",
            "volume at /var/run/argo in every container",
            {n: m.get("/var/run/argo", {}).get("name") for n, m in mounts.items()},
            dict.fromkeys(mounts, "var-run-argo"),
        ),
        (
            "WPC-LEGACY-003",
            "/tmp of the executor-image containers (volume, subPath)",
            {
                c["name"]: [
                    mounts[c["name"]].get("/tmp", {}).get(k)
                    for k in ("name", "subPath")
                ]
                for c in executor_ctrs
            },
            {c["name"]: ["tmp-dir-argo", str(regular.index(c))] for c in executor_ctrs}
            or "wait",
        ),
        shapes.user_commands(shape, clause="WPC-LEGACY-004", emissary=EMISSARY),
        (
            "WPC-LEGACY-005",
            "ARGO_TEMPLATE of init (a template) / main, wait (absent)",
            [
                shape.holds_template(
                    pods.env_of(ctr.get("init", {})).get("ARGO_TEMPLATE")
                ),
                *(
                    "ARGO_TEMPLATE" in pods.env_of(ctr.get(n, {}))
                    for n in ("main", "wait")
                ),
            ],
            [True, False, False],
        ),
        (
            "WPC-LEGACY-006",
            "supervisor / argoexec-bin volume / /argo-bin mounts / ARGO_WAIT_FOR_READY",
            [
                "supervisor" in ctr,
                "argoexec-bin" in volumes,
                sorted(n for n, m in mounts.items() if "/argo-bin" in m),
                sorted(
                    n for n, c in ctr.items() if "ARGO_WAIT_FOR_READY" in pods.env_of(c)
                ),
            ],
            [False, False, [], []],
        ),
        *shapes.user_command_checks(
            shape, clause="WPC-LEGACY-007", binary=EMISSARY, reader=TEMPLATE_READER
        ),
    ]
    shapes.verdict(shape, checks)
