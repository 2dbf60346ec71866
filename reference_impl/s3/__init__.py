"""The S3 client the reference executor ships: stdlib only, typed, never retrying.

- `client`: signed path-style requests (PUT/GET/HEAD object, HEAD/PUT bucket).
- `signing`: SigV4 as pure functions (checked against AWS's example vectors).
- `errors`: `S3Error` and `S3NotFoundError`, with the server's reply as evidence.

Kept apart from `reference_impl.artifacts` (which builds and deploys the
server) so the frozen executor pulls in nothing of the build machinery.
"""

from __future__ import annotations

from reference_impl.s3 import client
from reference_impl.s3 import errors
from reference_impl.s3 import signing

__all__ = ["client", "errors", "signing"]
