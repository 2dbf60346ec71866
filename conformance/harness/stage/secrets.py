"""Copying the artifact repository's Secrets into a test's namespace.

An artifact repository configuration names its credentials by Secret name
only (`accessKeySecret: {name, key}`), and pods can mount or read Secrets
from their own namespace alone; users are told to create the Secret in every
namespace that runs workflows. The suite does the same for the Secrets the
profile lists under `artifactRepository.secrets`: it copies their data (never
their metadata: uid, owner references and resourceVersion belong to the
original) into the test's namespace under the test's labels, so they go with
the namespace.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from conformance.errors import HarnessError
from conformance.harness.cluster import kube

logger = logging.getLogger(__name__)


def copy_into(
    clients: kube.Clients,
    *,
    secrets: Iterable[tuple[str, str]],
    namespace: str,
    labels: dict[str, str],
) -> list[str]:
    """Copy each (namespace, name) Secret into `namespace`; return the names copied."""
    from kubernetes.client.exceptions import ApiException

    copied = []
    for source_namespace, name in secrets:
        try:
            source = clients.core.read_namespaced_secret(name, source_namespace)
        except ApiException as exc:
            raise HarnessError(
                f"cannot read Secret {source_namespace}/{name} named by the profile's "
                f"artifactRepository.secrets: HTTP {exc.status} {exc.reason}"
            ) from exc
        clients.core.create_namespaced_secret(
            namespace,
            {
                "metadata": {"name": name, "labels": dict(labels)},
                "type": source.type,
                "data": dict(source.data or {}),
            },
        )
        logger.info("[%s] Copied Secret %s/%s.", namespace, source_namespace, name)
        copied.append(name)
    return copied
