"""Where artifacts are kept: an `ObjectStore` seam, and the S3 store behind it.

Input loading and output saving talk to an `ObjectStore`; which one is made
from an artifact's location by a `StoreFactory`. Production uses `s3_store`
(the stdlib S3 client of `reference_impl.s3`, credentials from the
Secret files the controller mounts under /argo/secret); unit tests pass a fake.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import BinaryIO
from typing import Protocol

from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.protocol import Paths

if TYPE_CHECKING:
    from reference_impl.s3.client import S3Client

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

NO_REPOSITORY = (
    "You need to configure artifact storage. More information on how to do this can be "
    "found in the docs: https://argo-workflows.readthedocs.io/en/latest/configure-artifact-repository/"
)
"""Argo's error when an output artifact has no key and the template no archiveLocation."""


class ArtifactNotFound(ArtifactError):
    """The artifact does not exist at its location (an optional one is skipped)."""


class ObjectStore(Protocol):
    """Moves whole objects between a bucket and local files."""

    def download(self, *, bucket: str, key: str, out: BinaryIO) -> None:
        """Write the object to the open file `out`; ArtifactNotFound if it does not exist.

        A file, not a path: the caller creates it without following links.
        """
        ...

    def upload(self, *, bucket: str, key: str, src: Path) -> None:
        """Store the file `src` as the object."""
        ...


class StoreFactory(Protocol):
    """Makes the store for an artifact's S3 location (bucket, endpoint, credentials)."""

    def __call__(self, location: JsonDict) -> ObjectStore:
        """Return a store for `location` (Argo's `s3` artifact fields)."""
        ...


def s3_location(*, artifact: JsonDict, archive_location: JsonDict) -> JsonDict | None:
    """The artifact's full S3 location: its own `s3` over the template's archiveLocation.

    Argo relocates an artifact that names only a key into the repository of the
    template's archiveLocation (`Artifact.Relocate`); this is that merge.
    """
    own = artifact.get("s3")
    if own is None:
        return None
    base = {k: v for k, v in (archive_location.get("s3") or {}).items() if k != "key"}
    return {**base, **own}


class _S3Store:
    """`ObjectStore` over `reference_impl.s3.client`."""

    def __init__(self, client: S3Client) -> None:
        self._client = client

    def download(self, *, bucket: str, key: str, out: BinaryIO) -> None:
        from reference_impl.s3.errors import S3Error
        from reference_impl.s3.errors import S3NotFoundError

        try:
            self._client.download_object(bucket=bucket, key=key, out=out)
        except S3NotFoundError as err:
            raise ArtifactNotFound(f"s3://{bucket}/{key} not found: {err}") from None
        except (S3Error, OSError) as err:
            raise ArtifactError(
                f"failed to download s3://{bucket}/{key}: {err}"
            ) from None

    def upload(self, *, bucket: str, key: str, src: Path) -> None:
        from reference_impl.s3.errors import S3Error

        try:
            self._client.put_object(bucket=bucket, key=key, body=src)
        except (S3Error, OSError) as err:
            raise ArtifactError(
                f"failed to upload s3://{bucket}/{key}: {err}"
            ) from None


def s3_store_factory(paths: Paths) -> StoreFactory:
    """Return a factory for S3 stores whose credentials come from mounted Secrets."""

    def make(location: JsonDict) -> ObjectStore:
        # Imported here: only init/wait/supervisor with S3 artifacts pay for it.
        from reference_impl.s3 import client as s3client

        endpoint = location.get("endpoint")
        if not endpoint:
            raise ArtifactError(f"s3 artifact location has no endpoint: {location}")
        config = s3client.S3Config(
            endpoint=str(endpoint),
            access_key=_secret(paths, location.get("accessKeySecret")),
            secret_key=_secret(paths, location.get("secretKeySecret")),
            region=str(location.get("region") or "us-east-1"),
            insecure=bool(location.get("insecure", False)),
        )
        return _S3Store(s3client.S3Client(config))

    return make


def _secret(paths: Paths, selector: JsonDict | None) -> str:
    if not selector:
        return ""
    path = paths.secret(str(selector["name"]), str(selector["key"]))
    try:
        return path.read_text().strip()
    except OSError as err:
        raise ArtifactError(
            f"failed to read artifact credentials {path}: {err}"
        ) from None
