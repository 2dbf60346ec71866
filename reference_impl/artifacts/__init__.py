"""The artifact repository: an in-cluster S3 server and an HTTP artifact server.

- `s3client`: the stdlib-only S3 client the reference executor packages.
- `signing`: SigV4 as pure functions (checked against AWS's example vectors).
- `names`, `pins`: service names, ports, bucket, image; the server's version.
- `building`: builds the pinned S3 server from the Go module proxy.
- `imaging`: prepares the `FROM scratch` image's build context.
- `manifests/`: kustomize manifests for namespace `argo`.

Only the light, stdlib-only modules are imported here, so that the packaged
executor pulls in nothing of the build machinery.
"""

from __future__ import annotations

from reference_impl.artifacts import errors
from reference_impl.artifacts import names
from reference_impl.artifacts import s3client
from reference_impl.artifacts import signing

__all__ = ["errors", "names", "s3client", "signing"]
