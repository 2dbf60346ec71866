"""The Kubernetes API as the controller uses it: raw JSON over the official client's transport.

Objects stay plain JSON dicts end to end (no generated models), so what the controller
builds is exactly what the API server receives, field for field. Authentication, TLS and
kubeconfig handling come from the official `kubernetes` client. Pod exec goes through the
client's websocket `stream`, which patches its ApiClient while it runs; it therefore has a
client of its own and a lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

from kubernetes import client
from kubernetes import config as kubeconfig
from kubernetes.stream import stream
from kubernetes.stream.ws_client import ERROR_CHANNEL
from kubernetes.stream.ws_client import STDERR_CHANNEL
from kubernetes.stream.ws_client import STDOUT_CHANNEL
from kubernetes.stream.ws_client import V4_CHANNEL_PROTOCOL

from reference_impl import common
from reference_impl.controller import errors

Json = dict[str, Any]
logger = logging.getLogger(__name__)

WORKFLOWS = f"/apis/{common.API_VERSION}/workflows"
TASK_RESULTS = f"/apis/{common.API_VERSION}/workflowtaskresults"
PODS = "/api/v1/pods"
REQUEST_TIMEOUT = 30.0
WATCH_SECONDS = 290
EXEC_TIMEOUT = 120.0


def load_configuration(kubeconfig_path: str | None) -> client.Configuration:
    """Return client configuration from a kubeconfig file, else from the pod's service account.

    Raises SettingsError naming the source when neither can be loaded.
    """
    configuration = client.Configuration()
    try:
        if kubeconfig_path:
            kubeconfig.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=kubeconfig_path, client_configuration=configuration
            )
        else:
            kubeconfig.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
    except (kubeconfig.ConfigException, OSError) as err:
        source = kubeconfig_path or "the in-cluster service account"
        raise errors.SettingsError(
            f"cannot load Kubernetes credentials from {source}: {err}"
        ) from err
    return configuration


class KubeApi:
    """Raw JSON calls to the API server; every failure becomes an `errors.ApiError`."""

    def __init__(self, configuration: client.Configuration) -> None:
        self._client = client.ApiClient(configuration)
        self._exec_core = client.CoreV1Api(client.ApiClient(configuration))
        self._exec_lock = threading.Lock()

    # -- transport ------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        timeout: float = REQUEST_TIMEOUT,
    ) -> Json:
        """Send one request and return the decoded JSON response."""
        response = self._send(
            method,
            path,
            query=query,
            body=body,
            content_type=content_type,
            timeout=timeout,
        )
        data = response.read()
        decoded: Json = json.loads(data) if data else {}
        return decoded

    def _send(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None,
        body: Any,
        content_type: str,
        timeout: float,
    ) -> Any:
        serialized = self._client.param_serialize(
            method=method,
            resource_path=path,
            query_params=list((query or {}).items()),
            header_params={"Content-Type": content_type, "Accept": "application/json"},
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            response = self._client.call_api(*serialized, _request_timeout=timeout)
        except client.ApiException as err:
            raise _error(method, path, int(err.status or 0), str(err.reason)) from err
        if response.status >= 400:
            raise _error(method, path, response.status, _message(response.read()))  # type: ignore[no-untyped-call]
        return response

    def list_objects(
        self, path: str, *, label_selector: str = "", field_selector: str = ""
    ) -> tuple[list[Json], str]:
        """Return the items at a collection path and the list's resourceVersion."""
        query = {
            k: v
            for k, v in (
                ("labelSelector", label_selector),
                ("fieldSelector", field_selector),
            )
            if v
        }
        items: list[Json] = []
        while True:
            page = self.request("GET", path, query={**query, "limit": "500"})
            items += page.get("items") or []
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return items, str(
                    (page.get("metadata") or {}).get("resourceVersion", "")
                )
            query["continue"] = token

    def watch(
        self,
        path: str,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Iterator[tuple[str, Json]]:
        """Yield (type, object) watch events from `resource_version` until the server ends the watch."""
        query = {
            "watch": "true",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(WATCH_SECONDS),
        }
        query.update(
            {
                k: v
                for k, v in (
                    ("labelSelector", label_selector),
                    ("fieldSelector", field_selector),
                )
                if v
            }
        )
        response = self._send(
            "GET",
            path,
            query=query,
            body=None,
            content_type="application/json",
            timeout=WATCH_SECONDS + 30,
        )
        buffer = b""
        try:
            for chunk in response.response.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        event = json.loads(line)
                        yield str(event.get("type")), event.get("object") or {}
        finally:
            response.response.release_conn()

    # -- objects ------------------------------------------------------------------------

    def create_pod(self, pod: Json) -> Json:
        """Create a pod."""
        return self.request(
            "POST", f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods", body=pod
        )

    def patch_pod(self, namespace: str, name: str, patch: Json) -> Json:
        """Apply a JSON merge patch to a pod."""
        return self.request(
            "PATCH",
            f"/api/v1/namespaces/{namespace}/pods/{name}",
            body=patch,
            content_type="application/merge-patch+json",
        )

    def delete_pod(
        self,
        namespace: str,
        name: str,
        *,
        grace_seconds: int | None = None,
        uid: str | None = None,
    ) -> None:
        """Delete a pod in the background, optionally only if it still has the given UID."""
        body: Json = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": "Background",
        }
        if grace_seconds is not None:
            body["gracePeriodSeconds"] = grace_seconds
        if uid:
            body["preconditions"] = {"uid": uid}
        self.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}", body=body)

    def list_pods(self, namespace: str, label_selector: str) -> list[Json]:
        """Return the pods of a namespace that match a label selector (read from the API, not a cache)."""
        return self.list_objects(
            f"/api/v1/namespaces/{namespace}/pods", label_selector=label_selector
        )[0]

    def exec_in_container(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> str:
        """Run a command in a container (pods/exec) and return its output."""
        return str(
            self._exec(
                namespace, pod, container, command, _request_timeout=EXEC_TIMEOUT
            )
        )

    def hold_exec(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> bool:
        """Run `command` in a container and stay attached until its session ends.

        Only the `follow-main-by-exec` fault calls this. Returns True when the
        session ended with an exit status (the command or its container ended),
        False when it broke without one: the connection through the API server,
        the kubelet and the container runtime was cut. ApiError when the session
        could not be opened.
        """
        session = self._exec(
            namespace,
            pod,
            container,
            command,
            _preload_content=False,
            # v4 only: with v5 the API server ends the session itself and sends a
            # status for a cut one too (its stream translator); with v4 the status
            # comes from the runtime's streaming server, and a cut session has none.
            _headers={"sec-websocket-protocol": V4_CHANNEL_PROTOCOL},
        )
        return held_to_its_status(session)

    def _exec(
        self,
        namespace: str,
        pod: str,
        container: str,
        command: list[str],
        **options: Any,
    ) -> Any:
        """Open a pods/exec websocket; `options` go to `stream` (its output or session)."""
        with self._exec_lock:
            try:
                return stream(
                    self._exec_core.connect_get_namespaced_pod_exec,
                    pod,
                    namespace,
                    container=container,
                    command=command,
                    stderr=True,
                    stdin=False,
                    stdout=True,
                    tty=False,
                    **options,
                )
            except client.ApiException as err:
                raise _error(
                    "EXEC",
                    f"{namespace}/{pod}/{container}",
                    int(err.status or 0),
                    str(err.reason),
                ) from err
            except (
                Exception
            ) as err:  # websocket failures have their own types; report them uniformly
                raise errors.ApiError(
                    verb="EXEC",
                    target=f"{namespace}/{pod}/{container}",
                    status=0,
                    reason=str(err),
                ) from err

    def get_pod(self, namespace: str, name: str) -> Json | None:
        """Return a pod read from the API, or None when it does not exist."""
        try:
            return self.request("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
        except errors.NotFound:
            return None

    def get_configmap(self, namespace: str, name: str) -> Json | None:
        """Return a ConfigMap, or None when it does not exist."""
        try:
            return self.request(
                "GET", f"/api/v1/namespaces/{namespace}/configmaps/{name}"
            )
        except errors.NotFound:
            return None

    def replace_workflow(self, workflow: Json) -> Json:
        """Replace the whole Workflow (the CRD has no status subresource); raises Conflict when stale."""
        meta = workflow["metadata"]
        path = f"/apis/{common.API_VERSION}/namespaces/{meta['namespace']}/workflows/{meta['name']}"
        return self.request("PUT", path, body=workflow)

    def delete_task_results(self, namespace: str, workflow: str) -> None:
        """Delete every task result of a workflow (`deleteTaskResults`)."""
        path = f"/apis/{common.API_VERSION}/namespaces/{namespace}/workflowtaskresults"
        self.request(
            "DELETE",
            path,
            query={"labelSelector": f"{common.LABEL_WORKFLOW}={workflow}"},
            body={
                "kind": "DeleteOptions",
                "apiVersion": "v1",
                "propagationPolicy": "Background",
            },
        )

    def get_lease(self, namespace: str, name: str) -> Json | None:
        """Return a Lease, or None when it does not exist."""
        try:
            return self.request(
                "GET",
                f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
            )
        except errors.NotFound:
            return None

    def create_lease(self, lease: Json) -> Json:
        """Create a Lease; raises AlreadyExists when another replica was faster."""
        namespace = lease["metadata"]["namespace"]
        return self.request(
            "POST",
            f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases",
            body=lease,
        )

    def replace_lease(self, lease: Json) -> Json:
        """Replace a Lease; raises Conflict when another replica changed it first."""
        meta = lease["metadata"]
        return self.request(
            "PUT",
            f"/apis/coordination.k8s.io/v1/namespaces/{meta['namespace']}/leases/{meta['name']}",
            body=lease,
        )


def _message(data: bytes | None) -> str:
    try:
        status = json.loads(data or b"{}")
    except ValueError:
        return (data or b"").decode(errors="replace")[:500]
    return str(status.get("message") or status)


def held_to_its_status(session: Any) -> bool:
    """Read an exec session (a `WSClient`) to its end; whether an exit status came.

    The status is what the runtime's streaming server sends on the error channel
    when the command ends; a session cut on the way (a closed socket, an
    exception) has none.
    """
    status = ""
    try:
        while session.is_open():
            session.update(timeout=1)
            for channel in (STDOUT_CHANNEL, STDERR_CHANNEL):
                session.read_channel(channel, timeout=0)  # output is not kept
            status += session.read_channel(ERROR_CHANNEL, timeout=0)
    except Exception as err:  # a cut connection surfaces as the socket's own error
        logger.info("Exec session broke: %s", err)
    with contextlib.suppress(Exception):  # a cut session may fail these too
        status += session.read_channel(ERROR_CHANNEL, timeout=0)
        session.close()
    return bool(status.strip())


def _error(method: str, path: str, status: int, reason: str) -> errors.ApiError:
    kind: type[errors.ApiError] = errors.ApiError
    if status == 404:
        kind = errors.NotFound
    elif status == 409:
        kind = errors.AlreadyExists if method == "POST" else errors.Conflict
    return kind(verb=method, target=path, status=status, reason=reason)
