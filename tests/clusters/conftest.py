"""Fixtures for the cluster proofs: a running local cluster, clients, images, namespaces."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException

from clusters import providers
from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.clusters import _images

CLUSTER = "wpc"
SESSION = uuid.uuid4().hex[:8]
LABELS = {"app.kubernetes.io/managed-by": "wpc", "wpc.dev/session-id": SESSION}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that recreate the cluster last: its new PKI breaks session clients."""
    items.sort(
        key=lambda item: item.get_closest_marker("recreates_cluster") is not None
    )


@pytest.fixture(scope="session")
def local() -> Any:
    provider = providers.get("local")
    status = provider.status(CLUSTER)
    if not status.running:
        pytest.fail(
            f"the local cluster {CLUSTER!r} is not running: run `make cluster-up` first"
        )
    return provider


@pytest.fixture(scope="session")
def kubeconfig(local: Any) -> Path:
    return Path(local.kubeconfig(CLUSTER))


@pytest.fixture(scope="session")
def kubectl(local: Any, kubeconfig: Path) -> list[str]:
    return [str(local.kubectl(CLUSTER)), "--kubeconfig", str(kubeconfig)]


@pytest.fixture(scope="session")
def api(kubeconfig: Path) -> k8s.ApiClient:
    return k8s_config.new_client_from_config(config_file=str(kubeconfig))


@pytest.fixture(scope="session")
def core(api: k8s.ApiClient) -> k8s.CoreV1Api:
    return k8s.CoreV1Api(api)


@pytest.fixture(scope="session")
def toolbox(local: Any) -> str:
    return str(local.load_image(CLUSTER, _images.toolbox_archive()))


@pytest.fixture(scope="session")
def data_image(local: Any) -> str:
    return str(local.load_image(CLUSTER, _images.data_archive()))


@pytest.fixture
def namespace(core: k8s.CoreV1Api, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh labelled namespace; deleted, and waited for, afterwards."""
    name = f"wpc-proof-{uuid.uuid4().hex[:8]}"
    core.create_namespace(
        k8s.V1Namespace(
            metadata=k8s.V1ObjectMeta(
                name=name, labels={**LABELS, "wpc.dev/test": request.node.name[:63]}
            )
        )
    )
    yield name
    core.delete_namespace(name)

    def gone() -> str | NotYet:
        try:
            ns = core.read_namespace(name)
        except ApiException as exc:
            if exc.status == 404:
                return "deleted"
            raise
        return NotYet(f"phase {ns.status.phase}")

    until(gone, timeout=120, interval=0.2, describe=f"namespace {name} to be deleted")


def run_pod(
    core: k8s.CoreV1Api,
    namespace: str,
    pod: dict[str, Any],
    timeout: float = 90,
    container: str | None = None,
) -> str:
    """Create a pod, wait for it to finish, return its logs (of `container`, if the
    pod has several); fail with evidence otherwise."""
    pod.setdefault("metadata", {}).setdefault("labels", {}).update(LABELS)
    name = pod["metadata"]["name"]
    core.create_namespaced_pod(namespace, pod)

    def done() -> str | NotYet:
        p = core.read_namespaced_pod(name, namespace)
        seen = f"{p.status.phase}: {p.status.container_statuses}"
        return seen if p.status.phase in ("Succeeded", "Failed") else NotYet(seen)

    until(
        done,
        timeout=timeout,
        interval=0.2,
        describe=f"pod {namespace}/{name} to finish",
    )
    logs = core.read_namespaced_pod_log(name, namespace, container=container)
    phase = core.read_namespaced_pod(name, namespace).status.phase
    assert phase == "Succeeded", f"pod {name} {phase}; logs:\n{logs}"
    return str(logs)


def kubectl_run(kubectl: list[str], *args: str, input_text: str | None = None) -> str:
    """Run kubectl; on failure the assertion shows the command, exit code and output."""
    proc = subprocess.run(
        [*kubectl, *args],
        capture_output=True,
        text=True,
        input=input_text,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, (
        f"{' '.join(args)} exited {proc.returncode}: {proc.stderr}{proc.stdout}"
    )
    return proc.stdout
