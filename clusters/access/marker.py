"""The marker every WPC-made cluster carries, and the check that protects other clusters.

The suite and the chaos experiments delete namespaces, restart controllers and
kill pods. They refuse to do that to a cluster WPC did not create unless the
user says so explicitly.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from clusters.errors import MarkerMissingError

NAMESPACE = "kube-system"
NAME = "wpc-cluster"
LABEL = "wpc.dev/cluster-marker"


def manifest(
    *, provider: str, name: str, details: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The marker ConfigMap for a cluster made by `provider` under `name`.

    `details`: what only the provider knows and a report should record (kind: the
    node image and its ID); reports copy the marker into their environment block.
    """
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {LABEL: "true", "app.kubernetes.io/managed-by": "wpc"},
        },
        # The provider's details never replace the three fields every marker has.
        "data": {
            **(details or {}),
            "provider": provider,
            "name": name,
            "created": datetime.datetime.now(datetime.UTC).isoformat(
                timespec="seconds"
            ),
        },
    }


def check(core_v1_api: Any) -> dict[str, str]:
    """Return the marker's data, or raise MarkerMissingError naming what is missing."""
    from kubernetes.client.exceptions import ApiException

    try:
        cm = core_v1_api.read_namespaced_config_map(NAME, NAMESPACE)
    except ApiException as exc:
        if exc.status == 404:
            raise MarkerMissingError(
                f"this cluster has no ConfigMap {NAMESPACE}/{NAME}: WPC did not create it. "
                "Pass the explicit override (--allow-foreign-cluster) to run against it anyway."
            ) from exc
        raise
    labels = cm.metadata.labels or {}
    if labels.get(LABEL) != "true":
        raise MarkerMissingError(
            f"ConfigMap {NAMESPACE}/{NAME} lacks the label {LABEL}=true; refusing to touch "
            "this cluster without the explicit override (--allow-foreign-cluster)."
        )
    return dict(cm.data or {})
