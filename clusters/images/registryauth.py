"""Credentials for a registry push, from the user's Docker config (#26).

Why: a managed cluster's registry (ECR, GAR, ACR, Quay, Harbor, a team's own
Distribution) asks for credentials, and the user already has them where `docker
login`, `podman login`, skopeo and crane keep them. The file is the first of
`REGISTRY_AUTH_FILE` (podman and skopeo), `$DOCKER_CONFIG/config.json` (docker),
`~/.docker/config.json`; its `auths.<host>` entry gives a user and password, as
`auth` (base64 `user:password`) or as `username` and `password`. Credential
helpers (`credsStore`, `credHelpers`) run a program per registry and are not
used: a host known only to one is an error that says so.

A registry answers an unauthorised request 401 with a challenge (the OCI
Distribution spec's `WWW-Authenticate`): `Basic` gets the user and password on
every request; `Bearer realm=...,service=...,scope=...` is the token flow: a GET
of the realm with that service and scope, with the user and password, gives a
token sent as `Authorization: Bearer` until the next challenge (a token covers
the scope it was asked for, so a push's first `pull` token is traded for a
`pull,push` one at its first upload).

Why not oras-py (PyPI `oras`, 0.2.43 when this was written): its image-layout push
reads an unpacked layout directory, not the archive `clusters build-image` writes,
and guesses each blob's kind by parsing it as JSON; it reads only
`~/.docker/config.json` (neither `REGISTRY_AUTH_FILE` nor `DOCKER_CONFIG`); it
brings requests and jsonschema and has no type information for mypy --strict.
The push in clusters/images/registry.py is five requests of the Distribution API; this
module adds the two it needs for credentials, with the stdlib.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from clusters.errors import ClusterError

TIMEOUT = 30.0
"""Seconds for the token request (a token service answers in well under one)."""

_PARAM = re.compile(r'(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


class CredentialError(ClusterError):
    """No usable credentials for a registry, or the registry refused them."""


@dataclass(frozen=True)
class Credentials:
    """A user and password for one registry, and the file they came from."""

    username: str
    password: str
    source: Path

    def basic(self) -> str:
        """The `Authorization` value of HTTP basic auth."""
        pair = f"{self.username}:{self.password}".encode()
        return f"Basic {base64.b64encode(pair).decode()}"


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The Docker config a push reads: REGISTRY_AUTH_FILE, DOCKER_CONFIG, or ~/.docker."""
    env = os.environ if environ is None else environ
    if env.get("REGISTRY_AUTH_FILE"):
        return Path(env["REGISTRY_AUTH_FILE"]).expanduser()
    if env.get("DOCKER_CONFIG"):
        return Path(env["DOCKER_CONFIG"]).expanduser() / "config.json"
    return Path.home() / ".docker" / "config.json"


def _host_of(key: str) -> str:
    """`auths` keys are hosts, or URLs like https://index.docker.io/v1/."""
    return urllib.parse.urlsplit(key if "://" in key else f"//{key}").netloc


def lookup(host: str, environ: Mapping[str, str] | None = None) -> Credentials | None:
    """The credentials the Docker config holds for `host` (host[:port]), or None."""
    path = config_file(environ)
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CredentialError(f"{path}: not a readable Docker config: {exc}") from exc
    auths = document.get("auths") if isinstance(document, dict) else None
    for key, entry in (auths or {}).items():
        if _host_of(str(key)) != host or not isinstance(entry, dict):
            continue
        if entry.get("auth"):
            try:
                pair = base64.b64decode(str(entry["auth"]), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError) as exc:
                raise CredentialError(
                    f"{path}: auths.{key}.auth is not base64 of user:password"
                ) from exc
            username, colon, password = pair.partition(":")
            if not colon:
                raise CredentialError(
                    f"{path}: auths.{key}.auth decodes to no user:password pair"
                )
            return Credentials(username, password, path)
        if entry.get("username") and "password" in entry:
            return Credentials(str(entry["username"]), str(entry["password"]), path)
    helpers = document.get("credHelpers") if isinstance(document, dict) else None
    if host in (helpers or {}) or (
        isinstance(document, dict) and document.get("credsStore")
    ):
        raise CredentialError(
            f"{path} keeps the credentials of registry {host} in a credential helper, "
            "which WPC does not run; give them as auths.<host>.auth (for example in a "
            "file named by REGISTRY_AUTH_FILE)"
        )
    return None


@dataclass(frozen=True)
class Challenge:
    """A parsed `WWW-Authenticate` header: the scheme and its parameters."""

    scheme: str
    params: Mapping[str, str]

    @classmethod
    def parse(cls, header: str) -> Challenge:
        """Read `Scheme k="v",k2=v2` (one challenge, as registries send)."""
        scheme, _, rest = header.strip().partition(" ")
        params = {
            match.group(1).lower(): (
                match.group(2) if match.group(2) is not None else match.group(3)
            )
            for match in _PARAM.finditer(rest)
        }
        return cls(scheme=scheme.lower(), params=params)


class Authenticator:
    """The `Authorization` header of one push's requests to one registry."""

    def __init__(self, host: str, environ: Mapping[str, str] | None = None) -> None:
        self.host = host
        self.environ = environ
        self.header: str | None = None
        self._credentials: Credentials | None = None
        self._looked_up = False

    def credentials(self) -> Credentials | None:
        """The user's credentials for this registry, read once."""
        if not self._looked_up:
            self._credentials = lookup(self.host, self.environ)
            self._looked_up = True
        return self._credentials

    def answer(self, challenge_header: str, *, refused: str) -> None:
        """Set `header` to answer a 401's challenge; `refused` names the request.

        Called again for the same request (its retry was refused too), the
        credentials were wrong: the error names the registry and their file.
        """
        creds = self.credentials()
        if creds is None:
            raise CredentialError(
                f"registry {self.host} asks for credentials ({refused} answered 401) "
                f"and {config_file(self.environ)} has none for it: `docker login "
                f"{self.host}` (or podman's, or REGISTRY_AUTH_FILE naming a file with "
                f"auths.{self.host}.auth)"
            )
        challenge = Challenge.parse(challenge_header)
        if challenge.scheme == "basic":
            self.header = creds.basic()
        elif challenge.scheme == "bearer":
            self.header = f"Bearer {self._token(challenge, creds)}"
        else:
            raise CredentialError(
                f"registry {self.host}: {refused} asks for {challenge.scheme or 'an unnamed'} "
                "authentication; WPC answers Basic and Bearer (token) challenges"
            )

    def refused(self, request: str) -> CredentialError:
        """The error for a request refused again after the challenge was answered."""
        creds = self.credentials()
        who = f"user {creds.username!r} from {creds.source}" if creds else "no user"
        return CredentialError(
            f"registry {self.host} refused the credentials of {who} ({request} answered "
            "401 again): the password is wrong, or the user may not push there"
        )

    def _token(self, challenge: Challenge, creds: Credentials) -> str:
        realm = challenge.params.get("realm", "")
        if urllib.parse.urlsplit(realm).scheme not in ("http", "https"):
            raise CredentialError(
                f"registry {self.host}: its Bearer challenge has no http(s) realm "
                f"({realm!r})"
            )
        query = urllib.parse.urlencode(
            {k: v for k, v in challenge.params.items() if k in ("service", "scope")}
        )
        url = f"{realm}{'&' if '?' in realm else '?'}{query}" if query else realm
        request = urllib.request.Request(url, headers={"Authorization": creds.basic()})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                document = json.load(response)
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise CredentialError(
                    f"registry {self.host}: its token service {realm} refused user "
                    f"{creds.username!r} from {creds.source} (HTTP {exc.code}): the "
                    "password is wrong, or the user may not push there"
                ) from exc
            raise CredentialError(
                f"registry {self.host}: GET {realm}: HTTP {exc.code} {exc.reason}"
            ) from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise CredentialError(
                f"registry {self.host}: GET {realm} for a token: {exc}"
            ) from exc
        token = (
            document.get("token") or document.get("access_token")
            if isinstance(document, dict)
            else None
        )
        if not isinstance(token, str) or not token:
            raise CredentialError(
                f"registry {self.host}: its token service {realm} answered without a "
                "token or access_token"
            )
        return token
