"""Proofs that the local cluster is real Kubernetes, not a stand-in.

We test these aspects, each on the running local cluster:
1. an image volume (KEP-4639) serves a file from a locally built image;
2. `kubectl logs` and `kubectl exec` work (apiserver -> kubelet and back);
3. a pod reaches the API through the `kubernetes` Service with its token,
   and reaches another Service by DNS name;
4. deleting an owner garbage-collects its dependents;
5. a pod with a finalizer stays Terminating until the finalizer goes;
6. a mutating webhook served from a pod is called and injects a container;
7. an image the existing provider pushed to a registry (WPC_EXISTING_REGISTRY, a real
   one on 127.0.0.1) is pulled from there by the kubelet for an image volume.
7b. a push to an htpasswd-protected registry fails naming it without a Docker config
   and succeeds with one, and the kubelet pulls the pushed `wpc.local/...` image
   through a containerd mirror of wpc.local that sends the credentials (hosts.toml
   in the node's `config_path`, clusters/local/configs.py).
(8, `down` leaves nothing behind, is in test_teardown.py: it runs last.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from clusters import cli as clusters_cli
from clusters.existing import ExistingProvider
from clusters.images import registry
from clusters.images import registryauth
from clusters.local import configs
from clusters.local.settings import LocalSettings
from conformance.harness.cluster import kube
from conformance.harness.cluster.timeouts import Timeouts
from conformance.harness.stage.injecting import CONTAINER
from conformance.harness.stage.injecting import injected_sidecar
from plumbing.waiting import NotYet
from plumbing.waiting import until
from tests.clusters import _images
from tests.clusters import _registry
from tests.clusters.conftest import CLUSTER
from tests.clusters.conftest import LABELS
from tests.clusters.conftest import kubectl_run
from tests.clusters.conftest import run_pod

pytestmark = pytest.mark.cluster


def _pod(name: str, image: str, command: list[str], **spec: Any) -> dict[str, Any]:
    container = {
        "name": "c",
        "image": image,
        "imagePullPolicy": "Never",
        "command": command,
    }
    container.update(spec.pop("container", {}))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"restartPolicy": "Never", "containers": [container], **spec},
    }


POLL = 0.2


def _phase(core: Any, namespace: str, name: str, want: str) -> str | NotYet:
    phase = core.read_namespaced_pod(name, namespace).status.phase
    return phase if phase == want else NotYet(f"phase {phase}")


def _cat_from_image_volume(
    name: str, toolbox: str, reference: str, pull_policy: str
) -> dict[str, Any]:
    """A pod printing the data image's file, mounted as an image volume at /mnt."""
    return _pod(
        name,
        toolbox,
        ["/bin/cat", "/mnt/data/hello.txt"],
        container={
            "volumeMounts": [{"name": "d", "mountPath": "/mnt", "readOnly": True}]
        },
        volumes=[
            {"name": "d", "image": {"reference": reference, "pullPolicy": pull_policy}}
        ],
    )


def test_image_volume_serves_a_file_from_a_locally_built_image(
    core, namespace, toolbox, data_image
):
    pod = _cat_from_image_volume("image-volume", toolbox, data_image, "IfNotPresent")
    assert run_pod(core, namespace, pod) == _images.DATA_TEXT


def test_the_kubelet_pulls_an_image_the_existing_provider_pushed(
    core, namespace, toolbox, kubeconfig, tmp_path, monkeypatch
):
    archive, text = _images.unique_data_archive(tmp_path)
    with _registry.running(tmp_path) as server:
        monkeypatch.setenv(registry.VARIABLE, server.url)
        said = ExistingProvider().load_image(str(kubeconfig), archive)
        pulled = f"127.0.0.1:{server.port}/cluster-proofs/pushed:1"
        assert f" as {pulled}@sha256:" in said
        pod = _cat_from_image_volume("registry-volume", toolbox, pulled, "Always")
        try:
            assert run_pod(core, namespace, pod) == text
        finally:
            _images.remove_image(pulled, CLUSTER)
    # The layer is new to the node, so containerd itself fetched it from the registry.
    fetched = [
        line
        for line in server.log.read_text().splitlines()
        if '"GET /v2/cluster-proofs/pushed/blobs/sha256:' in line
        and "containerd/" in line
    ]
    assert len(fetched) >= 2, f"containerd fetched {fetched} (log {server.log})"


def test_the_kubelet_pulls_a_pushed_image_through_a_mirror_with_credentials(
    core, namespace, toolbox, kubeconfig, tmp_path, monkeypatch, capsys
):
    archive, text = _images.unique_data_archive(tmp_path)
    user, password = "pusher", "cluster-proof"
    htpasswd = _registry.htpasswd_file(tmp_path / "htpasswd", {user: password})
    with _registry.running(tmp_path, htpasswd=htpasswd) as server:
        host = f"127.0.0.1:{server.port}"
        argv = ["load-image", "--provider", "existing", "--name", str(kubeconfig),
                "--registry", server.url, str(archive)]  # fmt: skip
        monkeypatch.setenv("REGISTRY_AUTH_FILE", str(tmp_path / "absent.json"))
        assert clusters_cli.main(argv) == 1
        assert f"error: registry {host} asks for credentials" in capsys.readouterr().err
        creds = registryauth.Credentials(user, password, tmp_path / "auth.json")
        auths = {host: {"username": user, "password": password}}
        creds.source.write_text(json.dumps({"auths": auths}))
        monkeypatch.setenv("REGISTRY_AUTH_FILE", str(creds.source))
        assert clusters_cli.main(argv) == 0
        assert f" as {host}/cluster-proofs/pushed:1@sha256:" in capsys.readouterr().out
        hosts = LocalSettings.from_env(CLUSTER).registry_hosts_dir / "wpc.local"
        hosts.mkdir(parents=True, exist_ok=True)
        (hosts / "hosts.toml").write_text(
            configs.mirror_hosts_toml("https://wpc.local", server.url, creds.basic())
        )
        pod = _cat_from_image_volume(
            "mirror-volume", toolbox, _images.PUSHED_TAG, "Always"
        )
        try:
            assert run_pod(core, namespace, pod) == text
        finally:
            (hosts / "hosts.toml").unlink()
            _images.remove_image(_images.PUSHED_TAG, CLUSTER)
    # containerd fetched the new layer from the mirror, and was let in.
    fetched = [
        line
        for line in server.log.read_text().splitlines()
        if '"GET /v2/cluster-proofs/pushed/blobs/sha256:' in line
        and "containerd/" in line
        and " 200 " in line
    ]
    assert len(fetched) >= 2, f"containerd fetched {fetched} (log {server.log})"


def test_kubectl_logs_and_exec_reach_the_kubelet(core, namespace, toolbox, kubectl):
    pod = _pod(
        "sleeper", toolbox, ["/bin/sh", "-c", "echo logged-line; exec sleep 3600"]
    )
    pod["metadata"]["labels"] = dict(LABELS)
    core.create_namespaced_pod(namespace, pod)
    until(
        lambda: _phase(core, namespace, "sleeper", "Running"),
        timeout=60,
        interval=POLL,
        describe="sleeper to run",
    )
    until(
        lambda: (
            "logged-line" in kubectl_run(kubectl, "-n", namespace, "logs", "sleeper")
            or NotYet("no logged-line in the logs yet")
        ),
        timeout=30,
        interval=POLL,
        describe="the log line",
        ignoring=(Exception,),  # kubectl logs fails until the container started
    )
    out = kubectl_run(
        kubectl,
        "-n",
        namespace,
        "exec",
        "sleeper",
        "--",
        "/bin/sh",
        "-c",
        "echo from-exec",
    )
    assert out.strip() == "from-exec"


def test_pod_reaches_the_api_with_its_token_and_a_service_by_dns_name(
    core, namespace, toolbox
):
    assert run_pod(
        core, namespace, _pod("api", toolbox, ["/bin/probe", "api"])
    ).startswith("200 ")
    server = _pod(
        "web", toolbox, ["/bin/probe", "serve", ":8080", "hello-from-service"]
    )
    server["metadata"]["labels"] = {"app": "web"}
    server["spec"]["restartPolicy"] = "Always"
    core.create_namespaced_pod(namespace, server)
    core.create_namespaced_service(
        namespace,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "labels": LABELS},
            "spec": {
                "selector": {"app": "web"},
                "ports": [{"port": 80, "targetPort": 8080}],
            },
        },
    )
    until(
        lambda: _phase(core, namespace, "web", "Running"),
        timeout=60,
        interval=POLL,
        describe="web to run",
    )
    url = f"http://web.{namespace}.svc.cluster.local/"
    logs = run_pod(core, namespace, _pod("client", toolbox, ["/bin/probe", "get", url]))
    assert logs.strip() == "200 hello-from-service"


def test_deleting_an_owner_garbage_collects_its_dependents(core, namespace):
    owner = core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "owner", "labels": LABELS}}
    )
    core.create_namespaced_config_map(
        namespace,
        {
            "metadata": {
                "name": "dependent",
                "labels": LABELS,
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "name": "owner",
                        "uid": owner.metadata.uid,
                    }
                ],
            }
        },
    )
    core.delete_namespaced_config_map("owner", namespace)

    def dependent_gone() -> str | NotYet:
        try:
            core.read_namespaced_config_map("dependent", namespace)
        except ApiException as exc:
            return "gone" if exc.status == 404 else NotYet(f"HTTP {exc.status}")
        return NotYet("dependent still exists")

    until(
        dependent_gone,
        timeout=60,
        interval=POLL,
        describe="the garbage collector to delete the dependent",
    )


def test_a_finalizer_keeps_a_deleted_pod_terminating_until_removed(
    core, namespace, toolbox
):
    pod = _pod("held", toolbox, ["/bin/sleep", "3600"])
    pod["metadata"]["finalizers"] = ["wpc.dev/hold"]
    pod["metadata"]["labels"] = dict(LABELS)
    pod["spec"]["terminationGracePeriodSeconds"] = 1
    core.create_namespaced_pod(namespace, pod)
    try:
        _hold_then_release(core, namespace)
    finally:
        # Never leave the namespace stuck Terminating behind a failed check.
        core.patch_namespaced_pod("held", namespace, {"metadata": {"finalizers": None}})

    def gone() -> str | NotYet:
        try:
            core.read_namespaced_pod("held", namespace)
        except ApiException as exc:
            return "gone" if exc.status == 404 else NotYet(f"HTTP {exc.status}")
        return NotYet("still there")

    until(
        gone,
        timeout=60,
        interval=POLL,
        describe="the pod to go once the finalizer is removed",
    )


def _hold_then_release(core: Any, namespace: str) -> None:
    # Deleted before it ran, the pod would never get container statuses (CI
    # once deleted it before the kubelet started it): delete a running pod.
    until(
        lambda: _phase(core, namespace, "held", "Running"),
        timeout=60,
        interval=POLL,
        describe="the held pod to run",
    )
    core.delete_namespaced_pod("held", namespace)

    def terminated_but_held() -> str | NotYet:
        p = core.read_namespaced_pod("held", namespace)
        states = [c.state.terminated for c in p.status.container_statuses or []]
        done = (
            p.metadata.deletion_timestamp is not None and all(states) and bool(states)
        )
        seen = f"deletionTimestamp={p.metadata.deletion_timestamp} states={states}"
        return seen if done else NotYet(seen)

    # The containers stop, yet the object stays: only the finalizer holds it.
    until(
        terminated_but_held,
        timeout=60,
        interval=POLL,
        describe="the pod's containers to stop while it is held",
    )
    assert core.read_namespaced_pod("held", namespace).metadata.finalizers == [
        "wpc.dev/hold"
    ]


def test_a_mutating_webhook_served_from_a_pod_injects_a_container(
    api, core, namespace, toolbox
):
    # The suite's own injector: it returns only once a dry-run pod comes back
    # mutated, because the API server loads a new webhook configuration
    # asynchronously (a pod created right after registering it can miss the
    # webhook; CI once did exactly that).
    clients = kube.Clients(api=api, core=core, rbac=None, custom=None)
    with injected_sidecar(
        clients,
        namespace=namespace,
        labels=LABELS,
        image=toolbox,
        command=["/bin/sh", "-c", "echo injected-ran"],
        timeouts=Timeouts(),
    ) as opt_in:
        target = _pod("target", toolbox, ["/bin/sh", "-c", "echo main-ran"])
        target["metadata"]["labels"] = {**opt_in, **LABELS}
        assert run_pod(core, namespace, target, container="c").strip() == "main-ran"
    pod = core.read_namespaced_pod("target", namespace)
    assert [c.name for c in pod.spec.containers] == ["c", CONTAINER]
    # The injected container really ran the command the webhook put there.
    logs = core.read_namespaced_pod_log("target", namespace, container=CONTAINER)
    assert logs.strip() == "injected-ran", logs
