"""We test these aspects of the WorkflowTaskResult (contract section 6), on a fake API:

the created body (name = node ID, labels, instance-id label only when set,
ownerReference to the Workflow without a controller flag), the upsert rule
(create; on AlreadyExists merge-patch; later patch; on NotFound create), the
final label patch, retries with back-off on transient errors only.
"""

from __future__ import annotations

import pytest

from reference_impl import common
from reference_impl.executor.api import taskresults
from reference_impl.executor.errors import ApiError
from tests.reference_impl.executor.conftest import api_error

IDENTITY = taskresults.Identity(
    namespace="ns", node_id="wf-123", workflow_name="wf", workflow_uid="uid-1"
)


def test_body_has_the_contract_labels_and_owner():
    body = taskresults.new_body(IDENTITY, {"outputs": {"result": "x"}})
    assert body["apiVersion"] == "argoproj.io/v1alpha1"
    assert body["kind"] == "WorkflowTaskResult"
    assert body["metadata"]["name"] == "wf-123"
    assert body["metadata"]["labels"] == {
        common.LABEL_WORKFLOW: "wf",
        common.LABEL_REPORT_OUTPUTS_COMPLETED: "false",
    }
    assert body["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Workflow",
            "name": "wf",
            "uid": "uid-1",
        }
    ]
    assert body["outputs"] == {"result": "x"}


def test_instance_id_label_only_when_set():
    identity = taskresults.Identity(
        namespace="ns",
        node_id="n",
        workflow_name="wf",
        workflow_uid="u",
        instance_id="i1",
    )
    labels = taskresults.new_body(identity, {})["metadata"]["labels"]
    assert labels[common.LABEL_INSTANCE_ID] == "i1"


def test_first_upsert_creates_then_patches(api, reporter):
    reporter.upsert({})
    reporter.upsert({"outputs": {"result": "r"}})
    assert [c[0] for c in api.calls] == ["create", "patch"]
    assert api.objects["wf-123"]["outputs"] == {"result": "r"}
    assert api.calls[0][1] == "ns"


def test_already_exists_falls_back_to_merge_patch(api, reporter):
    api.objects["wf-123"] = taskresults.new_body(IDENTITY, {})
    reporter.upsert({"outputs": {"result": "r"}})
    assert [c[0] for c in api.calls] == ["create", "patch"]
    assert api.objects["wf-123"]["outputs"] == {"result": "r"}


def test_not_found_on_patch_creates_again(api, reporter):
    reporter.upsert({})
    del api.objects["wf-123"]
    reporter.upsert({"outputs": {"result": "r"}})
    assert [c[0] for c in api.calls] == ["create", "patch", "create"]
    assert api.objects["wf-123"]["outputs"] == {"result": "r"}


def test_finalize_sets_the_completed_label(api, reporter):
    reporter.upsert({})
    reporter.finalize()
    labels = api.objects["wf-123"]["metadata"]["labels"]
    assert labels[common.LABEL_REPORT_OUTPUTS_COMPLETED] == "true"
    assert api.calls[-1][2] == {
        "metadata": {"labels": {common.LABEL_REPORT_OUTPUTS_COMPLETED: "true"}}
    }


def test_transient_errors_are_retried_with_capped_backoff(api, reporter, clock):
    api.failures = [api_error(503, "ServiceUnavailable") for _ in range(7)] + [
        api_error(0, "NoResponse")
    ]
    reporter.upsert({})
    assert clock.sleeps == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert "wf-123" in api.objects


def test_permanent_errors_are_raised(api, reporter, clock):
    api.failures = [api_error(403, "Forbidden")]
    with pytest.raises(ApiError, match="Forbidden"):
        reporter.upsert({})
    assert clock.sleeps == []
