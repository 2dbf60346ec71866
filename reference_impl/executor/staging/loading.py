"""Input artifacts: download each to /argo/inputs/artifacts/<name> before main runs.

Done by `init` (legacy) or the supervisor (init-less), as upstream `loadArtifacts`:
an artifact without a location is skipped if optional and an error otherwise;
the download goes to `<dest>.tmp`, then is unpacked (gzipped tar, unless
`archive: none`) or renamed into place, then chmod-ed to `mode` if given. An
artifact whose path lies on a user volume is written through /mainctrfs instead.
Drivers: `raw`, `http` (GET, `headers`), `s3` (through the `ObjectStore` seam).

`<dest>.tmp` is created afresh and the drivers write to that open file, never to
a path: whatever was there (a link planted on a shared volume, issue 29) is
removed, not written through, and a failed download leaves nothing behind.
Upstream's raw and HTTP drivers open the path with `os.Create`, which follows a
link (conformance/SPEC.md, WPC-POD-012's note).
"""

from __future__ import annotations

import contextlib
import logging
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import BinaryIO

from reference_impl import commission
from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.files import commissioned
from reference_impl.executor.protocol import Paths
from reference_impl.executor.storage import archives
from reference_impl.executor.storage import modes
from reference_impl.executor.storage import stores
from reference_impl.executor.templates import Artifact
from reference_impl.executor.templates import Template

logger = logging.getLogger(__name__)

LOCATION_KEYS = (
    "raw",
    "http",
    "s3",
    "artifactory",
    "git",
    "gcs",
    "hdfs",
    "oss",
    "azure",
    "plugin",
)
HTTP_TIMEOUT = 60.0
_DRIVERS = ("raw", "http", "s3")
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TMP_MODE = 0o666
"""Less the umask, as upstream's os.Create: main may run as another user."""


def load_all(
    *,
    template: Template,
    paths: Paths,
    stores_for: stores.StoreFactory,
    fault: commission.Fault | None = None,
    container: str = "",
) -> None:
    """Load every non-plugin input artifact of `template`.

    `fault`: a fault of commission whose `files` hook rewrites a file artifact.
    """
    for art in template.input_artifacts:
        if not any(key in art.raw for key in LOCATION_KEYS):
            if art.optional:
                logger.warning(
                    "Ignoring optional artifact %s, which was not supplied.", art.name
                )
                continue
            raise ArtifactError(f"required artifact '{art.name}' not supplied")
        if "plugin" in art.raw:
            continue  # loaded by its plugin sidecar, not here
        dest = paths.input_artifact(art.name)
        if template.overlapping_mount(art.path) is not None:
            dest = paths.main_fs(art.path)
        try:
            load_one(
                art=art,
                dest=dest,
                stores_for=stores_for,
                archive_location=template.archive_location,
            )
            commissioned.rewrite(fault, "artifact", dest, container=container)
        except stores.ArtifactNotFound:
            if not art.optional:
                raise
            logger.info(
                "Skipping optional input artifact %s, which was not found.", art.name
            )


def load_one(
    *,
    art: Artifact,
    dest: Path,
    stores_for: stores.StoreFactory,
    archive_location: dict[str, object],
) -> None:
    """Download `art` to `dest` and unpack it as Argo would."""
    logger.info("Downloading artifact %s to %s.", art.name, dest)
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    if not any(key in art.raw for key in _DRIVERS):
        # Upstream fails in InitDriver, before Load, so without the wrapping below.
        raise ArtifactError(f"Unsupported artifact driver for {art.name}")
    # Upstream's loadArtifact (workflow/executor/executor.go) wraps whatever the
    # driver's Load returns as `artifact <name> failed to load: <cause>`; a not-found
    # cause stays a not-found, so an optional artifact is still skipped.
    prefix = f"artifact {art.name} failed to load: "
    try:
        try:
            with _create(tmp) as out:
                _fetch(
                    art=art,
                    out=out,
                    stores_for=stores_for,
                    archive_location=archive_location,
                )
        except stores.ArtifactNotFound as err:
            raise stores.ArtifactNotFound(f"{prefix}{err}") from None
        except ArtifactError as err:
            raise ArtifactError(f"{prefix}{err}") from None
        _place(art=art, tmp=tmp, dest=dest)
    finally:
        # Gone after a rename or an unpack; otherwise removed (a link is removed,
        # not followed), and a directory planted there is left to the error above.
        with contextlib.suppress(OSError):
            tmp.unlink()
    if art.mode is not None:
        modes.set_mode(dest, art.mode, recurse=bool(art.raw.get("recurseMode")))
    logger.info("Successfully downloaded artifact %s.", art.name)


def _create(tmp: Path) -> BinaryIO:
    """`tmp`, newly created: whatever was there is removed, never opened.

    unlink removes a link itself, not its target; O_EXCL|O_NOFOLLOW then refuse a
    link planted again in between instead of writing through it.
    """
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, _TMP_FLAGS, _TMP_MODE)
    except OSError as err:
        raise ArtifactError(f"cannot create {tmp}: {err.strerror}") from None
    return os.fdopen(fd, "wb")


def _place(*, art: Artifact, tmp: Path, dest: Path) -> None:
    """Unpack the download `tmp` to `dest`, or rename it there."""
    strategy = art.archive
    if strategy == "zip":
        raise ArtifactError(
            f"artifact {art.name}: zip archives are not supported by the reference executor"
        )
    if strategy == "tar" and ("archive" in art.raw or archives.is_tar_gz(tmp)):
        archives.unpack(archive=tmp, dest=dest)
        tmp.unlink()
    else:
        tmp.rename(dest)


def _fetch(
    *,
    art: Artifact,
    out: BinaryIO,
    stores_for: stores.StoreFactory,
    archive_location: dict[str, object],
) -> None:
    raw = art.raw
    if "raw" in raw:
        out.write(str(raw["raw"].get("data", "")).encode())
    elif "http" in raw:
        _http_get(
            url=str(raw["http"]["url"]),
            headers=raw["http"].get("headers") or [],
            out=out,
        )
    elif "s3" in raw:
        location = stores.s3_location(
            artifact=raw, archive_location=dict(archive_location)
        )
        assert location is not None  # "s3" in raw
        stores_for(location).download(
            bucket=str(location.get("bucket", "")),
            key=str(location.get("key", "")),
            out=out,
        )
    else:
        raise ArtifactError(f"Unsupported artifact driver for {art.name}")


def _http_get(*, url: str, headers: list[dict[str, str]], out: BinaryIO) -> None:
    request = urllib.request.Request(
        url, headers={h["name"]: h["value"] for h in headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            while block := response.read(64 * 1024):
                out.write(block)
    except urllib.error.HTTPError as err:
        # As upstream's HTTP driver (workflow/artifacts/http/http.go retrieveContent):
        # a 404 is a not-found error whose text is the response's status line, any
        # other non-2xx names the URL and the status.
        status = f"{err.code} {err.reason}"
        err.close()  # the error holds the response's socket
        if err.code == 404:
            raise stores.ArtifactNotFound(status) from None
        raise ArtifactError(
            f"loading content from {url} failed with reason: {status}"
        ) from None
    except (urllib.error.URLError, OSError) as err:
        raise ArtifactError(f"failed to download {url}: {err}") from None
