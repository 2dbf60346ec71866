"""Names of the in-cluster artifact services, shared by code and manifests.

The manifests under `manifests/` spell the same values; a test keeps the two
in step, so a rename here that misses a YAML file fails loudly.
"""

from __future__ import annotations

from reference_impl import common

NAMESPACE = common.CONTROLLER_NAMESPACE
"""Argo's namespace: the controller reads its artifact repository from here."""

IMAGE = f"wpc.local/reference/s3:{common.VERSION}"
"""The S3 server image (FROM scratch + the static server); never `latest`."""

S3_SERVICE = "wpc-s3"
S3_PORT = 9000
S3_ENDPOINT = f"{S3_SERVICE}.{NAMESPACE}.svc:{S3_PORT}"
"""host:port, as Argo's `s3.endpoint` and our S3Config.endpoint take it."""

BUCKET = "wpc-artifacts"
"""Created when the server starts (a directory made by its init container)."""

REGION = "us-east-1"
"""The server's default region; SigV4 scopes must name it."""

CREDENTIALS_SECRET = "wpc-s3-credentials"
ACCESS_KEY_KEY = "accessKey"
SECRET_KEY_KEY = "secretKey"

HTTP_SERVICE = "wpc-http-artifacts"
HTTP_PORT = 8080
HTTP_BASE_URL = f"http://{HTTP_SERVICE}.{NAMESPACE}.svc:{HTTP_PORT}"
HTTP_KNOWN_FILE = "hello.txt"
"""A file the HTTP artifact server holds; any other path answers 404."""
HTTP_KNOWN_CONTENT = "hello from wpc-http-artifacts\n"
