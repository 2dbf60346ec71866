"""The pinned S3 server: which Go module, which version, which main package.

versitygw (Versity S3 Gateway) is a real S3 server with SigV4 authentication
and a POSIX backend in which every top-level directory is a bucket. Its go.mod
has no `replace` directives, so it builds from the Go module proxy as it
stands, and it is an order of magnitude smaller to compile than MinIO (which
Argo's own e2e uses) while speaking the same API subset Argo's minio-go client
needs: PUT/GET/HEAD object, HEAD bucket, GetBucketLocation, ListObjectsV2 and
the streaming (aws-chunked) signed uploads minio-go sends over plain HTTP.
"""

from __future__ import annotations

SERVER_NAME = "versitygw"
"""Component name: the cache directory is components/<name>-<version>."""

SERVER_MODULE = "github.com/versity/versitygw"
SERVER_VERSION = "v1.8.0"
"""Checked with `go list -m -versions github.com/versity/versitygw`."""

SERVER_PACKAGE = "github.com/versity/versitygw/cmd/versitygw"
"""The main package; `go build -o bin/` names the executable after it."""

SERVER_BINARY = "versitygw"
