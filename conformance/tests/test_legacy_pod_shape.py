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
from conformance.harness import pods

EMISSARY = contract.EMISSARY[contract.LEGACY]
SIDECARS = ["side-a", "side-b"]
USER_INITS = ["first-init", "second-init"]


def argo_command(container: dict[str, Any], verb: str) -> bool:
    """`["argoexec", verb, <logopts without "--">...]`."""
    command = container.get("command") or []
    return command[:2] == ["argoexec", verb] and "--" not in command


def is_shape_template(text: Any) -> bool:
    return pods.is_template_json(text, name="shape")


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
    everything = [*inits, *regular]
    ctr = {c["name"]: c for c in everything}
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    mounts = {
        c["name"]: {m["mountPath"]: m for m in c.get("volumeMounts") or []}
        for c in everything
    }
    user = {
        "main": declared["container"],
        **{s["name"]: s for s in declared["sidecars"]},
    }
    node = status["nodes"].get(name, {})
    outputs = node.get("outputs") or {}
    params = {p["name"]: p.get("value") for p in outputs.get("parameters") or []}
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
        (
            "WPC-LEGACY-001",
            "init container names",
            [c["name"] for c in inits],
            ["init", *USER_INITS],
        ),
        (
            "WPC-LEGACY-001",
            "init's image and command",
            [
                ctr.get("init", {}).get("image"),
                argo_command(ctr.get("init", {}), "init"),
            ],
            [executor_image, True],
        ),
        (
            "WPC-LEGACY-002",
            "container names",
            [c["name"] for c in regular],
            ["wait", "main", *SIDECARS],
        ),
        (
            "WPC-LEGACY-002",
            "wait's image and command",
            [
                ctr.get("wait", {}).get("image"),
                argo_command(ctr.get("wait", {}), "wait"),
            ],
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
        (
            "WPC-LEGACY-004",
            "original command and args of main and the sidecars",
            {n: pods.behind_emissary(ctr.get(n, {}), EMISSARY) for n in user},
            {n: [c.get("command"), c.get("args")] for n, c in user.items()},
        ),
        (
            "WPC-LEGACY-005",
            "ARGO_TEMPLATE of init (a template) / main, wait (absent)",
            [
                is_shape_template(
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
        (
            "WPC-LEGACY-007",
            "node of main's check that /var/run/argo/argoexec is executable",
            [node.get("phase"), node.get("message", "")],
            ["Succeeded", ""],
        ),
        (
            "WPC-LEGACY-007",
            "/var/run/argo/template as main's non-root user read it",
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
