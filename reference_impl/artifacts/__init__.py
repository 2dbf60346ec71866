"""The artifact repository's tooling: build and deploy the in-cluster S3 server.

- `names`, `pins`: service names, ports, bucket, image; the server's version.
- `repositories`: the default artifact repository in Argo's format.
- `building`: builds the pinned S3 server from the Go module proxy.
- `imaging`: prepares the `FROM scratch` image's build context.
- `errors`: `ArtifactError` and the failed build's `BuildError`.
- `manifests/`: kustomize manifests for namespace `argo`.

The S3 client the executor ships lives apart, in `reference_impl.s3`: nothing
shipped imports this package.
"""

from __future__ import annotations

from reference_impl.artifacts import errors
from reference_impl.artifacts import names

__all__ = ["errors", "names"]
