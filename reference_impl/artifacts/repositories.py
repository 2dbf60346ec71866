"""The default artifact repository, in Argo's `artifactRepository` format.

The same value is merged into workflow-controller-configmap by the kustomize
component `manifests/artifact-repository`; a test keeps the two equal. The
reference controller can read this instead of parsing the ConfigMap when it
needs the default (Argo: `config.ArtifactRepository`).
"""

from __future__ import annotations

from typing import Any

from reference_impl.artifacts import names


def default_repository() -> dict[str, Any]:
    """Return `{"s3": {...}}` pointing at the in-cluster S3 server."""
    return {
        "s3": {
            "bucket": names.BUCKET,
            "endpoint": names.S3_ENDPOINT,
            "insecure": True,
            "accessKeySecret": {
                "name": names.CREDENTIALS_SECRET,
                "key": names.ACCESS_KEY_KEY,
            },
            "secretKeySecret": {
                "name": names.CREDENTIALS_SECRET,
                "key": names.SECRET_KEY_KEY,
            },
        }
    }
