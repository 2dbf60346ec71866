"""We test these aspects of `conformance.harness.workload.workflows.Workflows` creating Workflows (no cluster):

- `submit` labels a Workflow for the run and the test's instance, keeping its own labels;
- `create` sets exactly the labels given (no instance label unless given), for
  Workflows meant for no instance or for a controller without instanceID;
- both leave the caller's manifest alone and drop a namespace it names;
- assert_succeeded() passes only a node with no message, exit code 0 and its parameters,
  and its failures name the clause it is given.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import contract
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.instances import layouts
from conformance.harness.workload.workflows import Workflows
from conformance.harness.workload.workflows import assert_succeeded


class FakeCustom:
    def __init__(self) -> None:
        self.created: list[tuple[str, dict[str, Any]]] = []

    def create_namespaced_custom_object(
        self,
        group: str,
        version: str,
        namespace: str,
        plural: str,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        assert (group, version, plural) == (
            contract.WORKFLOW_GROUP,
            contract.WORKFLOW_VERSION,
            "workflows",
        )
        self.created.append((namespace, body))
        return {"metadata": {"name": f"wf-{len(self.created)}"}}


def workflows() -> tuple[Workflows, FakeCustom]:
    custom = FakeCustom()
    clients = kube.Clients(api=None, core=None, rbac=None, custom=custom)
    instance = layouts.Instance(layout="legacy", instance_id="wpc-t-1", namespace="x")
    wfs = Workflows(
        clients=clients,
        namespace="ns",
        labels={"wpc.dev/session-id": "s"},
        instance=instance,
        timeouts=Timeouts(),
    )
    return wfs, custom


MANIFEST = {
    "metadata": {"generateName": "w-", "namespace": "other", "labels": {"a": "b"}}
}


def test_submit_labels_for_the_run_and_the_instance():
    wfs, custom = workflows()
    assert wfs.submit(MANIFEST) == "wf-1"
    namespace, body = custom.created[0]
    assert namespace == "ns"
    assert body["metadata"] == {
        "generateName": "w-",
        "labels": {
            "a": "b",
            "wpc.dev/session-id": "s",
            contract.INSTANCE_LABEL: "wpc-t-1",
        },
    }


def test_create_sets_exactly_the_labels_given():
    wfs, custom = workflows()
    wfs.create(MANIFEST, labels={"wpc.dev/session-id": "s"})
    wfs.create({}, labels={contract.INSTANCE_LABEL: "nobody"})
    assert custom.created[0][1]["metadata"] == {
        "generateName": "w-",
        "labels": {"wpc.dev/session-id": "s"},
    }
    assert custom.created[1][1]["metadata"] == {
        "generateName": "wf-",
        "labels": {contract.INSTANCE_LABEL: "nobody"},
    }
    assert MANIFEST["metadata"]["namespace"] == "other"


def test_assert_succeeded_accepts_only_a_clean_success_with_its_parameters():
    node = {
        "phase": "Succeeded",
        "outputs": {"exitCode": "0", "parameters": [{"name": "a", "value": "1"}]},
    }
    assert_succeeded(node, parameters=[("a", "1")], clause="WPC-X-001")
    for broken in (
        {**node, "message": "odd"},
        {**node, "outputs": {**node["outputs"], "exitCode": "1"}},
    ):
        # Each failure names the clause it checks (a negative control counts on it).
        with pytest.raises(AssertionError, match=r"^WPC-X-001: "):
            assert_succeeded(broken, parameters=[("a", "1")], clause="WPC-X-001")
    with pytest.raises(AssertionError, match=r"^WPC-X-001: "):
        assert_succeeded(node, parameters=[("a", "2")], clause="WPC-X-001")
