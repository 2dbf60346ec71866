"""Push an image archive to a registry over the OCI Distribution API (#12).

Why: the `existing` provider has no node access, so on a cluster that is neither
kind nor k3d the only way its nodes get the suite's tools image (and any image a
profile's `prepare` builds) is a registry they pull from. The user names one
(`clusters load-image --registry`, or `WPC_EXISTING_REGISTRY` for a whole run) and
points the nodes' containerd at it as a mirror of the image's own registry host
(`wpc.local` for the suite's images). A mirror is asked for the repository path
without that host, so an image `wpc.local/wpc-tools:0.1.0` is pushed as
`<registry>/<prefix>/wpc-tools:0.1.0`.

The archive is an OCI image layout with one image manifest, as `clusters
build-image` writes. The push is the API's plain sequence: per blob a HEAD (an
existing blob is not sent again), else a POST for an upload and a PUT with the
digest; then a PUT of the manifest, whose digest the registry must echo. Nothing
is half-pushed: every blob is checked to be in the archive before the first
request, and the manifest, the only thing a tag names, goes last, so a push that
fails leaves at most unreferenced blobs, never a tag pointing at missing ones. A
registry that asks for credentials (401) gets the user's from their Docker config,
by basic auth or the token flow (clusters/images/registryauth.py); none, or wrong ones, is
an error naming the registry.
"""

from __future__ import annotations

import json
import os
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clusters.errors import ClusterError
from clusters.images.registryauth import Authenticator

VARIABLE = "WPC_EXISTING_REGISTRY"
"""The registry the existing provider pushes to, when set (see docs)."""

TIMEOUT = 60.0
"""Seconds for one HTTP request (a layer of tens of MB on a slow link fits)."""

MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)


class RegistryError(ClusterError):
    """A push failed: the request, the registry's answer, or the archive."""


@dataclass(frozen=True)
class Registry:
    """Where to push: `base` is scheme://host[:port], `prefix` a path or ''."""

    base: str
    prefix: str = ""

    @classmethod
    def parse(cls, text: str, *, source: str = "--registry") -> Registry:
        """Read `[http://|https://]host[:port][/prefix]`; https when no scheme."""
        given = text.strip()
        if "://" not in given:
            given = f"https://{given}"
        url = urllib.parse.urlsplit(given)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise RegistryError(
                f"{source} {text!r}: expected [http://|https://]host[:port][/prefix]"
            )
        if url.query or url.fragment or url.username:
            raise RegistryError(
                f"{source} {text!r}: no query, fragment or credentials, just "
                "[http://|https://]host[:port][/prefix]"
            )
        try:
            _ = url.port  # parsing it validates it
        except ValueError as exc:
            raise RegistryError(f"{source} {text!r}: {exc}") from exc
        return cls(base=f"{url.scheme}://{url.netloc}", prefix=url.path.strip("/"))

    def reference(self, repository: str, tag: str) -> str:
        """The pushed image's reference, as a node or `ctr` would name it."""
        return f"{urllib.parse.urlsplit(self.base).netloc}/{repository}:{tag}"


def from_env(environ: Mapping[str, str] | None = None) -> Registry | None:
    """The registry `WPC_EXISTING_REGISTRY` names, or None when it is unset."""
    env = os.environ if environ is None else environ
    value = env.get(VARIABLE, "")
    return Registry.parse(value, source=VARIABLE) if value.strip() else None


def split_reference(ref: str) -> tuple[str, str]:
    """(path without the registry host, tag) of an image reference with a tag."""
    name, _, tag = ref.rpartition(":")
    if not name or "/" in tag:
        raise RegistryError(f"image {ref!r} has no tag; its archive cannot be pushed")
    first, slash, rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        name = rest
    return name, tag


@dataclass(frozen=True)
class Pushed:
    """One image pushed: its new reference, manifest digest and blobs sent."""

    reference: str
    digest: str
    sent: int
    skipped: int


def push(
    archive: Path, registry: Registry, *, environ: Mapping[str, str] | None = None
) -> Pushed:
    """Push the OCI archive's one image to `registry`; return what was pushed.

    `environ` locates the Docker config with the credentials (default: os.environ).
    """
    index, blobs = _read_layout(archive)
    try:
        entry = index["manifests"][0]
        ref = str(entry["annotations"]["io.containerd.image.name"])
        digest = str(entry["digest"])
        manifest_bytes = blobs[digest]
        manifest = json.loads(manifest_bytes)
        media_type = str(manifest.get("mediaType") or entry["mediaType"])
        needed = [manifest["config"]["digest"]] + [
            layer["digest"] for layer in manifest["layers"]
        ]
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise RegistryError(
            f"{archive}: not an OCI archive of one image manifest as `clusters "
            f"build-image` writes ({exc!r} missing or malformed)"
        ) from exc
    if media_type not in MANIFEST_TYPES or len(index["manifests"]) != 1:
        raise RegistryError(
            f"{archive}: holds {media_type} x{len(index['manifests'])}; only one image "
            f"manifest ({', '.join(MANIFEST_TYPES)}) can be pushed"
        )
    missing = [blob for blob in needed if blob not in blobs]
    if missing:
        raise RegistryError(f"{archive}: blob {missing[0]} is missing")
    repository, tag = split_reference(ref)
    auth = Authenticator(urllib.parse.urlsplit(registry.base).netloc, environ)
    if registry.prefix:
        repository = f"{registry.prefix}/{repository}"
    api = f"{registry.base}/v2/{repository}"
    sent = 0
    for blob in needed:
        if _request("HEAD", f"{api}/blobs/{blob}", auth, ok=(200, 404)).status == 200:
            continue
        started = _request("POST", f"{api}/blobs/uploads/", auth, ok=(202,))
        location = started.headers.get("Location")
        if not location:
            raise RegistryError(f"POST {api}/blobs/uploads/: 202 without a Location")
        upload = urllib.parse.urljoin(registry.base, location)
        joiner = "&" if urllib.parse.urlsplit(upload).query else "?"
        _request(
            "PUT",
            f"{upload}{joiner}digest={urllib.parse.quote(blob)}",
            auth,
            body=blobs[blob],
            content_type="application/octet-stream",
            ok=(201,),
        )
        sent += 1
    answer = _request(
        "PUT",
        f"{api}/manifests/{tag}",
        auth,
        body=manifest_bytes,
        content_type=media_type,
        ok=(201,),
    )
    echoed = answer.headers.get("Docker-Content-Digest")
    if echoed and echoed != digest:
        raise RegistryError(
            f"PUT {api}/manifests/{tag}: the registry stored digest {echoed}, "
            f"the archive's manifest is {digest}"
        )
    return Pushed(
        reference=registry.reference(repository, tag),
        digest=digest,
        sent=sent,
        skipped=len(needed) - sent,
    )


def _read_layout(archive: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """index.json and every blob of an OCI image-layout tar, by digest."""
    blobs: dict[str, bytes] = {}
    index = None
    try:
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                name = member.name.removeprefix("./")
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                if name == "index.json":
                    index = json.load(handle)
                elif name.startswith("blobs/"):
                    algorithm, _, hexdigest = name.removeprefix("blobs/").partition("/")
                    blobs[f"{algorithm}:{hexdigest}"] = handle.read()
    except (OSError, tarfile.TarError, ValueError) as exc:
        raise RegistryError(f"{archive}: cannot read the archive: {exc}") from exc
    if not isinstance(index, dict):
        raise RegistryError(
            f"{archive}: no index.json, so not an OCI image layout (a docker-save "
            "archive cannot be pushed; write it with `clusters build-image`)"
        )
    return index, blobs


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Mapping[str, str]


def _request(
    method: str,
    url: str,
    auth: Authenticator,
    *,
    ok: tuple[int, ...],
    body: bytes | None = None,
    content_type: str | None = None,
) -> _Answer:
    """One HTTP request; a status outside `ok` is a RegistryError with the answer.

    A 401 is answered from the user's credentials (`auth`) and the request sent
    once more; refused again, the credentials are wrong. The Authorization header
    goes only to the registry's own host (an upload may be redirected elsewhere).
    """
    answered = False
    while True:
        try:
            return _send(method, url, auth, ok=ok, body=body, content_type=content_type)
        except urllib.error.HTTPError as exc:
            if answered:
                raise auth.refused(f"{method} {url}") from exc
            auth.answer(
                exc.headers.get("WWW-Authenticate", ""), refused=f"{method} {url}"
            )
            answered = True


def _send(
    method: str,
    url: str,
    auth: Authenticator,
    *,
    ok: tuple[int, ...],
    body: bytes | None,
    content_type: str | None,
) -> _Answer:
    """One HTTP request; a 401 is raised as the HTTPError for `_request` to answer."""
    request = urllib.request.Request(url, data=body, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    if auth.header and urllib.parse.urlsplit(url).netloc == auth.host:
        request.add_header("Authorization", auth.header)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            answer = _Answer(response.status, dict(response.headers))
    except urllib.error.HTTPError as exc:
        if exc.code in ok:
            return _Answer(exc.code, dict(exc.headers))
        if exc.code == 401:
            raise
        text = exc.read(500).decode(errors="replace").strip()
        raise RegistryError(
            f"{method} {url}: HTTP {exc.code} {exc.reason}: {text or '(no body)'}"
        ) from exc
    except (urllib.error.URLError, OSError) as exc:
        raise RegistryError(f"{method} {url}: {exc}") from exc
    if answer.status not in ok:
        raise RegistryError(
            f"{method} {url}: HTTP {answer.status}, expected {' or '.join(map(str, ok))}"
        )
    return answer
