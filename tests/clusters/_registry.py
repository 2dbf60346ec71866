"""A real OCI registry on 127.0.0.1 for the push tests: CNCF Distribution, built here.

Why this one: it is the registry the OCI Distribution API was written from, it
builds from the Go module proxy with `CGO_ENABLED=0` (about 1.5 min on 2 cores,
cached afterwards under `<cache>/components/distribution-<version>/`), and it runs
as one process on a loopback port with a file-system store, like the S3 server of
the artifact tests.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from plumbing import gobuilding
from plumbing.gobuilding import BuildSettings
from tests import loopback
from tests.clusters import _images

MODULE = "github.com/distribution/distribution/v3"
VERSION = "v3.1.2"
"""Checked with `go list -m -versions github.com/distribution/distribution/v3`."""

BUILD = gobuilding.GoBuild(
    name="distribution",
    version=VERSION,
    packages=(f"{MODULE}/cmd/registry",),
    requires=((MODULE, VERSION),),
    static=True,
)
READY_TIMEOUT = 30.0
"""Seconds for the registry to accept connections (it starts in well under 1 s)."""

CONFIG = """\
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: {root}
http:
  addr: 127.0.0.1:{port}
"""
HTPASSWD = """\
auth:
  htpasswd:
    realm: wpc-test
    path: {path}
"""
"""Distribution's basic auth: every request needs a user of this bcrypt file."""
TOKEN = """\
auth:
  token:
    realm: {realm}
    service: {service}
    issuer: {issuer}
    jwks: {jwks}
"""
"""Distribution's token auth: a request needs a JWT the realm issued, signed by a JWKS key."""


@dataclass(frozen=True)
class TokenAuth:
    """Where the registry sends clients for tokens, and how it checks them."""

    realm: str
    service: str
    issuer: str
    jwks: Path


def binary() -> Path:
    """The registry executable, built once per version.

    Under a lock: the unit stage's two xdist workers may both ask for it first.
    """
    cache = BuildSettings.from_env().cache_dir
    target = gobuilding.component_dir(cache, BUILD.name, BUILD.version)
    lock = target.parent / f"{target.name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return gobuilding.build(BUILD, cache_dir=cache) / "registry"


@dataclass(frozen=True)
class RunningRegistry:
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def running(
    root: Path, *, htpasswd: Path | None = None, token: TokenAuth | None = None
) -> Iterator[RunningRegistry]:
    """Serve a registry storing under `root` until the block ends; then stop it.

    With `htpasswd` (a file `htpasswd_file` writes) every request needs one of its
    users; with `token`, a token from its realm.
    """
    port = loopback.free_port()
    config = root / "config.yml"
    text = CONFIG.format(root=root / "store", port=port)
    if htpasswd is not None:
        text += HTPASSWD.format(path=htpasswd)
    if token is not None:
        text += TOKEN.format(**vars(token))
    config.write_text(text)
    log = root / "registry.log"
    with loopback.serving(
        [str(binary()), "serve", str(config)],
        port=port,
        log_path=log,
        env={"OTEL_TRACES_EXPORTER": "none", "OTEL_SDK_DISABLED": "true"},
        describe="registry",
        ready_timeout=READY_TIMEOUT,
    ):
        yield RunningRegistry(port=port, log=log)


def htpasswd_file(path: Path, users: dict[str, str]) -> Path:
    """Write an htpasswd file of bcrypt hashes (the only kind Distribution accepts)."""
    import bcrypt  # a dev extra: only the registry tests need it

    path.write_text(
        "".join(
            f"{user}:{bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()}\n"
            for user, password in users.items()
        )
    )
    return path


def data_archive(tmp_path: Path, tag: str) -> Path:
    """An OCI archive of a one-file image, its text unique to `tmp_path`."""
    return _images.data_image(
        tmp_path / "context",
        tmp_path / "data.tar",
        tag,
        f"pushed from {tmp_path.name}\n",
    )
