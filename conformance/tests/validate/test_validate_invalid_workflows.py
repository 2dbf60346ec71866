"""ValidateInvalidWorkflows: bad input fails clearly, creates no pod, stops nothing else.

We test these aspects, with variants derived from one valid workflow and
submitted together, followed by the valid workflow itself, which must still
succeed (the controller keeps serving):

- sidecars named `wait`, `supervisor` and `artifact-plugin-wpc` fail
  validation with exactly `invalid spec: templates.main.sidecars: "<name>" is a
  reserved Argo container name` (WPC-VALIDATE-002), a missing entrypoint with
  `invalid spec: spec.entrypoint is required` (WPC-VALIDATE-004); each ends
  `Failed` with no pod (WPC-VALIDATE-001);
- a sidecar named `main` and, in legacy, an init container named `init` never
  run: the workflow ends `Failed` or `Error` and no pod has two containers of
  one name (WPC-VALIDATE-005);
- a container without `command` whose image cannot be looked up ends `Error`
  with `failed to look-up entrypoint/cmd for image "<image>"` and no pod
  (WPC-VALIDATE-007);
- containerSet members with reserved names are rejected alike (WPC-VALIDATE-003);
- sidecars named `main` or `init` and an init container named `init` fail
  validation as reserved names (WPC-VALIDATE-006, a SHOULD Argo v4.1.x fails,
  OQ-8).

Matrix: legacy and initless (the `init` init container of WPC-VALIDATE-005 in
legacy only: initless runs it, OQ-8).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from conformance import contract
from conformance.harness.cluster import kube
from conformance.harness.workload.workflows import Workflows
from conformance.harness.workload.workflows import workflow_pods

RESERVED = ("wait", "supervisor", "artifact-plugin-wpc")
# An image no registry can serve, whose look-up fails on every machine the same way:
# the upper-case repository is not a valid reference, so the look-up ends before any
# network access. A well-formed name on an unknown host would make the answer depend
# on the machine's DNS, and a DNS failure is transient to Argo: it retries for ever
# and the node stays Running (seen against v4.1.2; docs/known-deviations.md).
MISSING_IMAGE = "wpc.invalid/No-Such-Image:0.0.1"
Doc = dict[str, Any]


def _variant(base: Doc, label: str, change: Callable[[Doc], None]) -> Doc:
    doc = copy.deepcopy(base)
    doc["metadata"] = {"generateName": f"validate-{label}-"}
    change(doc["spec"]["templates"][0])
    return doc


def _container(base: Doc, name: str) -> Doc:
    container = copy.deepcopy(base["spec"]["templates"][0]["container"])
    return {**container, "name": name, "args": ["sleep 1"]}


def _with(base: Doc, key: str, name: str) -> Callable[[Doc], None]:
    def change(template: Doc) -> None:
        template[key] = [_container(base, name)]

    return change


def _container_set(base: Doc, name: str) -> Callable[[Doc], None]:
    def change(template: Doc) -> None:
        template.pop("container")
        template["containerSet"] = {"containers": [_container(base, name)]}

    return change


Results = dict[str, tuple[Doc, list[Any]]]


def _run(
    workflows: Workflows,
    kube_clients: kube.Clients,
    namespace: str,
    docs: dict[str, Doc],
) -> Results:
    """Submit every variant, then return label -> (workflow, its pods)."""
    names = {label: workflows.submit(doc) for label, doc in docs.items()}
    results = {}
    for label, name in names.items():
        workflow = workflows.wait_completed(name)
        pods = workflow_pods(kube_clients, namespace, name)
        results[label] = (workflow, pods)
    return results


def _summary(workflow: Doc, pods: list[Any]) -> str:
    status = workflow["status"]
    return (
        f"phase={status.get('phase')!r} message={status.get('message')!r} "
        f"pods={[p.metadata.name for p in pods]}"
    )


def _check_rejected(
    results: Results, expected: dict[str, str], *, exact: bool, clause: str
) -> None:
    """Each workflow Failed, without pods, with its message; `clause` names the message's."""
    problems = []
    for label, message in expected.items():
        workflow, pods = results[label]
        status = workflow["status"]
        got = status.get("message", "")
        ok_message = got == message if exact else got.startswith("invalid spec: ")
        cited = [] if ok_message and message in got else [clause]
        if status["phase"] != "Failed" or pods or not got.startswith("invalid spec: "):
            cited.append("WPC-VALIDATE-001")
        if cited:
            problems.append(
                f"{', '.join(cited)}: {label}: {_summary(workflow, pods)}; "
                f"expected {message!r}"
            )
    assert not problems, "\n".join(problems)


@pytest.mark.conformance(
    short_name="ValidateInvalidWorkflows",
    clauses=[
        "WPC-VALIDATE-001",
        "WPC-VALIDATE-002",
        "WPC-VALIDATE-004",
        "WPC-VALIDATE-005",
        "WPC-VALIDATE-007",
    ],
)
def test_invalid_workflows_fail_with_clear_messages_and_no_pods(
    workflows, manifest, kube_clients, namespace, layout
):
    base = manifest()
    docs = {
        f"sidecar-{n}": _variant(base, n, _with(base, "sidecars", n)) for n in RESERVED
    }
    docs["no-entrypoint"] = _variant(base, "no-entrypoint", lambda _: None)
    del docs["no-entrypoint"]["spec"]["entrypoint"]
    docs["sidecar-main"] = _variant(base, "main", _with(base, "sidecars", "main"))
    if layout.layout == contract.LEGACY:
        docs["init-named-init"] = _variant(
            base, "init", _with(base, "initContainers", "init")
        )

    def no_command(template: Doc) -> None:
        template["container"] = {
            "image": MISSING_IMAGE,
            "imagePullPolicy": "IfNotPresent",
        }

    docs["no-command"] = _variant(base, "no-command", no_command)
    docs["valid"] = base  # last: the controller still serves after the bad ones
    results = _run(workflows, kube_clients, namespace, docs)

    reserved = {
        f"sidecar-{n}": f'invalid spec: templates.main.sidecars: "{n}" is a reserved Argo container name'
        for n in RESERVED
    }
    _check_rejected(results, reserved, exact=True, clause="WPC-VALIDATE-002")
    _check_rejected(
        results,
        {"no-entrypoint": "invalid spec: spec.entrypoint is required"},
        exact=True,
        clause="WPC-VALIDATE-004",
    )
    for label in ("sidecar-main", "init-named-init"):
        if label not in results:
            continue
        workflow, pods = results[label]
        duplicated = [
            p.metadata.name
            for p in pods
            for group in (p.spec.containers, p.spec.init_containers or [])
            if len({c.name for c in group}) != len(group)
        ]
        assert workflow["status"]["phase"] in {"Failed", "Error"}, (
            f"WPC-VALIDATE-005: {label}: {_summary(workflow, pods)}"
        )
        assert not duplicated, (
            f"WPC-VALIDATE-005: {label}: pods with duplicate container names {duplicated}"
        )

    workflow, pods = results["no-command"]
    node = workflow["status"]["nodes"][workflow["metadata"]["name"]]
    prefix = f'failed to look-up entrypoint/cmd for image "{MISSING_IMAGE}"'
    assert node["phase"] == "Error", f"WPC-VALIDATE-007: {_summary(workflow, pods)}"
    assert node.get("message", "").startswith(prefix), (
        f"WPC-VALIDATE-007: node message {node.get('message')!r}; {_summary(workflow, pods)}"
    )
    assert not pods, f"WPC-VALIDATE-007: {_summary(workflow, pods)}"

    workflow, pods = results["valid"]
    assert workflow["status"]["phase"] == "Succeeded", (
        f"WPC-VALIDATE-001: the valid workflow after the invalid ones: "
        f"{_summary(workflow, pods)}"
    )


@pytest.mark.conformance(
    short_name="ValidateInvalidWorkflows", clauses=["WPC-VALIDATE-003"]
)
def test_container_set_members_with_reserved_names_fail_validation(
    workflows, manifest, kube_clients, namespace
):
    base = manifest()
    docs = {n: _variant(base, n, _container_set(base, n)) for n in RESERVED}
    results = _run(workflows, kube_clients, namespace, docs)
    _check_rejected(
        results,
        {
            n: f'invalid spec: templates.main.containerSet.containers: "{n}" is a reserved Argo container name'
            for n in RESERVED
        },
        exact=True,
        clause="WPC-VALIDATE-003",
    )


@pytest.mark.conformance(
    short_name="ValidateInvalidWorkflows", clauses=["WPC-VALIDATE-006"]
)
def test_sidecars_and_init_containers_named_main_or_init_fail_validation(
    workflows, manifest, kube_clients, namespace
):
    base = manifest()
    docs = {
        "sidecar-main": _variant(base, "main", _with(base, "sidecars", "main")),
        "sidecar-init": _variant(base, "init", _with(base, "sidecars", "init")),
        "init-named-init": _variant(
            base, "init", _with(base, "initContainers", "init")
        ),
    }
    results = _run(workflows, kube_clients, namespace, docs)
    _check_rejected(
        results,
        dict.fromkeys(docs, "is a reserved Argo container name"),
        exact=False,
        clause="WPC-VALIDATE-006",
    )
