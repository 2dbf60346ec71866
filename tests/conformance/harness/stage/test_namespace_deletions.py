"""Test namespaces are deleted without holding the test that used them.

Kubernetes takes about 6 s to remove an empty namespace; the namespace fixture
used to wait for it in every test's teardown (6 s of about 100 items' cleanup,
some 600 s of a reference run's item time). Now it starts the deletion and the
process awaits them all at its end (`namespaces.Deletions`), except for a test
holding the unlabelled-workflows lock, whose Workflows a later controller
without `instanceID` would otherwise see.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from conformance.errors import HarnessError
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.stage import namespaces
from conformance.plugin.items import fixtures
from conformance.plugin.state import keys

SESSION = "s-1"


class Core:
    """Namespaces that disappear after `reads_until_gone` reads once deleted."""

    def __init__(self, reads_until_gone: int = 2) -> None:
        self.labels: dict[str, dict[str, str]] = {}
        self.deleting: dict[str, int] = {}
        self.reads_until_gone = reads_until_gone
        self.log: list[tuple[str, str]] = []

    def create_namespace(self, body: dict[str, Any]) -> None:
        self.labels[body["metadata"]["name"]] = body["metadata"]["labels"]

    def read_namespace(self, name: str) -> Any:
        self.log.append(("read", name))
        if name not in self.labels:
            raise ApiException(status=404)
        if name in self.deleting:
            self.deleting[name] -= 1
            if self.deleting[name] < 0:
                del self.labels[name], self.deleting[name]
                raise ApiException(status=404)
        return SimpleNamespace(
            metadata=SimpleNamespace(labels=self.labels[name]),
            status=SimpleNamespace(phase="Terminating", conditions=[]),
        )

    def delete_namespace(self, name: str) -> None:
        self.log.append(("delete", name))
        self.deleting[name] = self.reads_until_gone

    def list_namespaced_pod(self, namespace: str) -> Any:
        return SimpleNamespace(items=[])


class Rbac:
    def create_namespaced_role(self, namespace: str, body: Any) -> None:
        pass

    def create_namespaced_role_binding(self, namespace: str, body: Any) -> None:
        pass


def _clients(core: Core) -> Any:
    return SimpleNamespace(core=core, rbac=Rbac(), api=None)


@pytest.fixture(autouse=True)
def _rbac_grants_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes import client

    monkeypatch.setattr(client, "AuthorizationV1Api", Reviews(lagging=0))


TIMEOUTS = dataclasses.replace(Timeouts(), poll_interval=0.0)


def _ours(core: Core, name: str) -> None:
    core.create_namespace(
        {"metadata": {"name": name, "labels": {kube.SESSION: SESSION}}}
    )


def _deletions(core: Core, timeouts: Timeouts = TIMEOUTS) -> namespaces.Deletions:
    return namespaces.Deletions(_clients(core), session_id=SESSION, timeouts=timeouts)


def test_start_deletes_without_waiting_and_wait_all_waits_for_each():
    core = Core()
    for name in ("a", "b"):
        _ours(core, name)
    deletions = _deletions(core)
    deletions.start("a")
    deletions.start("b")
    assert core.log == [("read", "a"), ("delete", "a"), ("read", "b"), ("delete", "b")]
    assert set(core.labels) == {"a", "b"}, "start must not wait for the deletion"

    assert deletions.wait_all() == []
    assert core.labels == {}
    assert deletions.pending == []


def test_a_namespace_already_gone_is_not_awaited():
    deletions = _deletions(Core())
    deletions.start("never-made")
    assert deletions.pending == []


def test_a_namespace_of_another_run_is_refused():
    core = Core()
    core.create_namespace(
        {"metadata": {"name": "x", "labels": {kube.SESSION: "other"}}}
    )
    deletions = _deletions(core)
    with pytest.raises(HarnessError, match="not created by run s-1"):
        deletions.start("x")
    assert ("delete", "x") not in core.log


def test_one_not_gone_in_time_is_left_to_the_sweep_and_the_rest_awaited():
    core = Core()
    for name in ("stuck", "fine"):
        _ours(core, name)
    deletions = _deletions(core, dataclasses.replace(TIMEOUTS, namespace_deleted=0.0))
    deletions.start("stuck")
    core.deleting["stuck"] = 10**6
    deletions.start("fine")
    core.deleting["fine"] = 0
    assert deletions.wait_all() == ["stuck"]
    assert "fine" not in core.labels


def _run_namespace_fixture(core: Core, fixturenames: list[str]) -> namespaces.Deletions:
    deletions = _deletions(core)
    request = SimpleNamespace(node=SimpleNamespace(stash={}), fixturenames=fixturenames)
    body = fixtures.namespace._get_wrapped_function()(
        request=request,
        kube_clients=_clients(core),
        run_context=SimpleNamespace(session_id=SESSION),
        declaration=SimpleNamespace(short_name="HelloWorld"),
        test_labels={kube.SESSION: SESSION, kube.LAYOUT: "legacy"},
        timeouts=TIMEOUTS,
        namespace_deletions=deletions,
    )
    name = next(body)
    assert request.node.stash[keys.NAMESPACE] == name
    with pytest.raises(StopIteration):
        next(body)
    return deletions


def test_the_namespace_fixture_leaves_its_deletion_to_the_end_of_the_process():
    core = Core()
    deletions = _run_namespace_fixture(core, ["namespace"])
    (name,) = deletions.pending
    assert name in core.labels
    assert ("delete", name) in core.log


def test_a_test_holding_the_unlabelled_workflows_lock_waits_for_its_namespace():
    core = Core()
    deletions = _run_namespace_fixture(
        core, [fixtures.UNLABELLED_WORKFLOWS_LOCK, "namespace"]
    )
    assert deletions.pending == []
    assert core.labels == {}


def test_an_api_error_while_waiting_leaves_that_namespace_to_the_sweep():
    core = Core()
    for name in ("broken", "fine"):
        _ours(core, name)
    deletions = _deletions(core)
    deletions.start("broken")
    deletions.start("fine")
    reads = core.read_namespace

    def read(name: str) -> Any:
        if name == "broken":
            raise ApiException(status=500)
        return reads(name)

    core.read_namespace = read  # type: ignore[method-assign]
    assert deletions.wait_all() == ["broken"]
    assert "fine" not in core.labels


def test_stuck_namespaces_share_one_bound(monkeypatch):
    """Two stuck namespaces cost one `namespace_deleted` wait, not two."""
    now = [1000.0]
    bounds: list[float] = []

    def waited(clients: Any, *, name: str, timeouts: Timeouts, timeout: float) -> None:
        bounds.append(timeout)
        now[0] += timeout  # a stuck namespace uses up all it was given
        raise namespaces.WaitTimeout(
            describe=f"namespace {name} to be deleted",
            timeout=timeout,
            last_observed="Terminating",
        )

    monkeypatch.setattr(namespaces, "wait_deleted", waited)
    monkeypatch.setattr(namespaces.time, "monotonic", lambda: now[0])
    core = Core()
    for name in ("one", "two"):
        _ours(core, name)
    deletions = _deletions(core, dataclasses.replace(TIMEOUTS, namespace_deleted=60.0))
    deletions.start("one")
    deletions.start("two")
    assert deletions.wait_all() == ["one", "two"]
    assert bounds == [60.0, 0.0]


class Reviews:
    """SubjectAccessReviews that deny `create` for the first `lagging` reviews of it."""

    def __init__(self, lagging: int) -> None:
        self.lagging = lagging
        self.seen: list[str] = []

    def __call__(self, _api: Any) -> Reviews:
        return self

    def create_subject_access_review(self, review: dict[str, Any]) -> Any:
        verb = review["spec"]["resourceAttributes"]["verb"]
        self.seen.append(verb)
        allowed = not (verb == "create" and self.seen.count("create") <= self.lagging)
        return SimpleNamespace(status=SimpleNamespace(allowed=allowed))


def test_create_returns_only_once_rbac_grants_the_executor_role(monkeypatch):
    # Seen in a conformance run: the binding just created was missing from the
    # authorizer's cache for the first review (`create` denied, `patch` allowed).
    from kubernetes import client

    reviews = Reviews(lagging=2)
    monkeypatch.setattr(client, "AuthorizationV1Api", reviews)
    clients = _clients(Core())
    namespaces.create(clients, name="ns", labels={})
    assert reviews.seen == ["create", "patch"] * 3


def test_rbac_that_never_grants_names_the_denied_verb(monkeypatch):
    from kubernetes import client

    from conformance.errors import WaitTimeout

    monkeypatch.setattr(client, "AuthorizationV1Api", Reviews(lagging=10**6))
    clients = _clients(Core())
    with pytest.raises(WaitTimeout, match="may not yet create workflowtaskresults"):
        namespaces.create(clients, name="ns", labels={}, timeout=0.0)


class VanishingPods(Core):
    """Lists two pods holding the status finalizer; the first is gone when patched."""

    def __init__(self) -> None:
        super().__init__()
        self.patched: list[str] = []

    def list_namespaced_pod(self, namespace: str) -> Any:
        return SimpleNamespace(
            items=[
                SimpleNamespace(
                    metadata=SimpleNamespace(
                        name=name, finalizers=["workflows.argoproj.io/status"]
                    )
                )
                for name in ("gone", "held")
            ]
        )

    def patch_namespaced_pod(self, name: str, namespace: str, body: Any) -> None:
        if name == "gone":
            raise ApiException(status=404)
        self.patched.append(name)


def test_a_pod_gone_between_the_list_and_the_patch_is_no_error():
    """Failed before: the 404 ended FinalizerPodGc's teardown as an error."""
    core = VanishingPods()
    assert namespaces.strip_status_finalizers(_clients(core), "ns") == 1
    assert core.patched == ["held"]
