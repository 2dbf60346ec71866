"""We test these aspects of copying the artifact repository's Secrets (no cluster):

- the copy carries the source's type and data under the test's labels, never
  its metadata (uid, resourceVersion, owner references stay with the original);
- a Secret the profile names but the cluster lacks is a HarnessError that
  names it and the profile key.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.stage import secrets


class FakeCore:
    def __init__(self, stored: dict[tuple[str, str], Any]) -> None:
        self.stored = stored
        self.created: list[tuple[str, dict[str, Any]]] = []

    def read_namespaced_secret(self, name: str, namespace: str) -> Any:
        if (namespace, name) not in self.stored:
            raise ApiException(status=404, reason="Not Found")
        return self.stored[(namespace, name)]

    def create_namespaced_secret(self, namespace: str, body: dict[str, Any]) -> None:
        self.created.append((namespace, body))


def clients(core: FakeCore) -> kube.Clients:
    return kube.Clients(api=None, core=core, rbac=None, custom=None)


def test_the_copy_has_the_data_and_the_test_labels_only():
    source = SimpleNamespace(
        type="Opaque",
        data={"accessKey": "YQ=="},
        metadata=SimpleNamespace(uid="u1", resource_version="7"),
    )
    core = FakeCore({("argo", "creds"): source})
    copied = secrets.copy_into(
        clients(core), secrets=[("argo", "creds")], namespace="t1", labels={"a": "b"}
    )
    assert copied == ["creds"]
    assert core.created == [
        (
            "t1",
            {
                "metadata": {"name": "creds", "labels": {"a": "b"}},
                "type": "Opaque",
                "data": {"accessKey": "YQ=="},
            },
        )
    ]


def test_a_missing_secret_is_named():
    with pytest.raises(HarnessError, match=r"Secret argo/creds .*artifactRepository"):
        secrets.copy_into(
            clients(FakeCore({})),
            secrets=[("argo", "creds")],
            namespace="t1",
            labels={},
        )
