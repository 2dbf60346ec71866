"""A minimal in-cluster Kubernetes API client: POST and merge-PATCH of task results.

(And GET, which only the `result-read-back` fault uses: the executor's RBAC denies it.)

Why not the official client: it is what the rest of the project uses, but
packaged into the static argoexec it would cost ~0.5 s of imports per start
(measured: `import kubernetes.client` 0.45-0.56 s vs 0.06 s for http.client +
ssl + json) and ~130 MB of installed dependencies for two verbs. The executor
needs the service-account token, the cluster CA and `KUBERNETES_SERVICE_HOST/
PORT`, exactly what pods are given, so this speaks HTTPS with the stdlib.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_impl import common
from reference_impl.executor.api.taskresults import PLURAL
from reference_impl.executor.errors import ApiError
from reference_impl.executor.errors import ConfigError

logger = logging.getLogger(__name__)

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
MERGE_PATCH = "application/merge-patch+json"
USER_AGENT = f"wpc-reference-argoexec/{common.VERSION}"


@dataclass(frozen=True)
class KubeSettings:
    """How to reach the API server from inside a pod."""

    host: str
    port: int
    token_path: Path = SERVICE_ACCOUNT / "token"
    """Re-read on every request: projected tokens rotate."""
    ca_path: Path = SERVICE_ACCOUNT / "ca.crt"
    namespace: str = "default"
    """The pod's namespace, from the service-account mount."""
    timeout: float = 30.0

    @classmethod
    def from_env(cls) -> KubeSettings:
        """Read KUBERNETES_SERVICE_HOST/PORT and the service-account namespace."""
        host = os.environ.get("KUBERNETES_SERVICE_HOST", "")
        port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
        if not host:
            raise ConfigError(
                "KUBERNETES_SERVICE_HOST is not set: not running in a pod?"
            )
        try:
            namespace = (SERVICE_ACCOUNT / "namespace").read_text().strip()
        except OSError as err:
            raise ConfigError(f"cannot read the pod's namespace: {err}") from None
        return cls(host=host, port=int(port), namespace=namespace)


class InClusterClient:
    """JSON requests to the API server; implements `taskresults.TaskResultApi`."""

    def __init__(self, settings: KubeSettings) -> None:
        self._settings = settings
        self._context = ssl.create_default_context(cafile=str(settings.ca_path))

    def create(self, *, namespace: str, body: dict[str, Any]) -> None:
        """POST a WorkflowTaskResult."""
        self._request("POST", _collection(namespace), body, "application/json")

    def merge_patch(self, *, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """JSON-merge-patch a WorkflowTaskResult."""
        self._request("PATCH", f"{_collection(namespace)}/{name}", patch, MERGE_PATCH)

    def get(self, *, namespace: str, name: str) -> dict[str, Any]:
        """GET a WorkflowTaskResult (only the `result-read-back` fault does)."""
        return self._request("GET", f"{_collection(namespace)}/{name}", None, "")

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None, content_type: str
    ) -> dict[str, Any]:
        s = self._settings
        try:
            token = s.token_path.read_text().strip()
            conn = http.client.HTTPSConnection(
                s.host, s.port, timeout=s.timeout, context=self._context
            )
            try:
                headers = {
                    "Authorization": f"Bearer {token}",
                    "Accept": "application/json",
                    "User-Agent": USER_AGENT,
                }
                if body is not None:
                    headers["Content-Type"] = content_type
                conn.request(
                    method,
                    path,
                    body=None if body is None else json.dumps(body).encode(),
                    headers=headers,
                )
                response = conn.getresponse()
                data = response.read()
            finally:
                conn.close()
        except (OSError, http.client.HTTPException) as err:
            raise ApiError(
                method=method,
                path=path,
                status=0,
                reason="NoResponse",
                message=str(err),
            ) from None
        parsed = _json(data)
        if response.status >= 300:
            raise ApiError(
                method=method,
                path=path,
                status=response.status,
                reason=str(parsed.get("reason") or response.reason),
                message=str(
                    parsed.get("message") or data[:200].decode(errors="replace")
                ),
            )
        return parsed


def _collection(namespace: str) -> str:
    return f"/apis/{common.API_VERSION}/namespaces/{namespace}/{PLURAL}"


def _json(data: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(data) if data else {}
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
