"""We test pushes to registries that ask for credentials (clusters/images/registryauth.py),
against a real CNCF Distribution registry on 127.0.0.1 with htpasswd auth
(tests/clusters/_registry.py), and with its token auth:

- the credentials come from the first of REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json,
  ~/.docker/config.json, as `auths.<host>.auth` (base64 user:password) or as
  username and password; a host known only to a credential helper is an error;
- a push with a Docker config file succeeds, and the registry serves the manifest
  under the tag with the archive's digest;
- a push without credentials, and one with a wrong password, fail naming the
  registry, leave no tag, and exit `load-image` with 1 and that message;
- nothing is half-pushed: the manifest is the push's last request, and a push
  that fails part-way leaves no tag;
- the token flow, on Distribution's own token auth: the registry answers 401
  `Bearer realm=...,service=...,scope=...` and accepts only JWTs signed by a key of
  its JWKS; a stdlib http.server on loopback is the token service it names
  (Distribution has none of its own), issuing an RS256 token per scope to good
  basic credentials (signed with `openssl`); a push gets a pull token, then a push
  one, and a wrong password is an error naming the registry and its token service.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from clusters import cli
from clusters.images import registry
from clusters.images import registryauth
from tests import loopback
from tests.clusters import _registry

pytestmark = pytest.mark.slow

TAG = "wpc.local/auth-proof/data:1"
USER, PASSWORD = "pusher", "s3cret-pass"
MANIFEST = "application/vnd.oci.image.manifest.v1+json"


def docker_config(path: Path, host: str, user: str, password: str) -> Path:
    pair = base64.b64encode(f"{user}:{password}".encode()).decode()
    path.write_text(json.dumps({"auths": {host: {"auth": pair}}}))
    return path


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[_registry.RunningRegistry]:
    root = tmp_path_factory.mktemp("authed-registry")
    htpasswd = _registry.htpasswd_file(root / "htpasswd", {USER: PASSWORD})
    with _registry.running(root, htpasswd=htpasswd) as running:
        yield running


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return _registry.data_archive(tmp_path, TAG)


def host(url: str) -> str:
    return url.removeprefix("http://")


def manifest_status(url: str, repository: str, tag: str) -> int:
    """The registry's answer to a GET of the tag, with good credentials."""
    request = urllib.request.Request(
        f"{url}/v2/{repository}/manifests/{tag}",
        headers={
            "Accept": MANIFEST,
            "Authorization": registryauth.Credentials(USER, PASSWORD, Path()).basic(),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


# -- the Docker config --------------------------------------------------------------


def test_the_config_file_is_registry_auth_file_then_docker_config_then_home(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert registryauth.config_file({}) == tmp_path / ".docker" / "config.json"
    env = {"DOCKER_CONFIG": str(tmp_path / "d")}
    assert registryauth.config_file(env) == tmp_path / "d" / "config.json"
    env["REGISTRY_AUTH_FILE"] = str(tmp_path / "auth.json")
    assert registryauth.config_file(env) == tmp_path / "auth.json"


def test_credentials_are_auth_or_username_and_password_by_host(tmp_path):
    path = tmp_path / "auth.json"
    path.write_text(
        json.dumps(
            {
                "auths": {
                    "https://one.test/v1/": {
                        "auth": base64.b64encode(b"a:b:c").decode()
                    },
                    "two.test:5000": {"username": "u", "password": "p"},
                }
            }
        )
    )
    env = {"REGISTRY_AUTH_FILE": str(path)}
    assert registryauth.lookup("one.test", env) == registryauth.Credentials(
        "a", "b:c", path
    )
    assert registryauth.lookup("two.test:5000", env) == registryauth.Credentials(
        "u", "p", path
    )
    assert registryauth.lookup("three.test", env) is None
    assert (
        registryauth.lookup("one.test", {"REGISTRY_AUTH_FILE": "/nonexistent"}) is None
    )


def test_a_credential_helper_or_a_bad_auth_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "auth.json"
    env = {"REGISTRY_AUTH_FILE": str(path)}
    path.write_text(json.dumps({"credHelpers": {"reg.test": "ecr-login"}}))
    with pytest.raises(registryauth.CredentialError, match=r"registry reg\.test in a"):
        registryauth.lookup("reg.test", env)
    path.write_text(json.dumps({"auths": {"reg.test": {"auth": "not base64!"}}}))
    with pytest.raises(registryauth.CredentialError, match=f"^{path}: auths.reg.test"):
        registryauth.lookup("reg.test", env)


def test_a_bearer_challenge_is_parsed_with_quoted_commas():
    challenge = registryauth.Challenge.parse(
        'Bearer realm="https://auth.test/token",service="reg.test",'
        'scope="repository:a/b:pull,push"'
    )
    assert challenge.scheme == "bearer"
    assert challenge.params == {
        "realm": "https://auth.test/token",
        "service": "reg.test",
        "scope": "repository:a/b:pull,push",
    }


# -- htpasswd (basic auth) on a real Distribution registry ------------------------


def test_a_push_with_a_docker_config_file_succeeds(server, archive, tmp_path):
    config = docker_config(tmp_path / "auth.json", host(server.url), USER, PASSWORD)
    pushed = registry.push(
        archive,
        registry.Registry.parse(server.url),
        environ={"REGISTRY_AUTH_FILE": str(config)},
    )
    assert pushed.digest == images_digest(str(archive))
    request = urllib.request.Request(
        f"{server.url}/v2/auth-proof/data/manifests/1",
        headers={
            "Accept": MANIFEST,
            "Authorization": registryauth.Credentials(USER, PASSWORD, config).basic(),
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    assert f"sha256:{hashlib.sha256(body).hexdigest()}" == pushed.digest


def images_digest(archive: str) -> str:
    import tarfile

    with tarfile.open(archive) as tar:
        index = json.loads(tar.extractfile("index.json").read())  # type: ignore[union-attr]
    return str(index["manifests"][0]["digest"])


def test_the_docker_config_dir_is_read_too(server, archive, tmp_path):
    (tmp_path / "dc").mkdir()
    docker_config(tmp_path / "dc" / "config.json", host(server.url), USER, PASSWORD)
    pushed = registry.push(
        archive,
        registry.Registry.parse(f"{server.url}/team"),
        environ={"DOCKER_CONFIG": str(tmp_path / "dc")},
    )
    assert pushed.reference == f"{host(server.url)}/team/auth-proof/data:1"


def test_a_push_without_credentials_fails_naming_the_registry(
    server, archive, tmp_path, monkeypatch, capsys
):
    target = registry.Registry.parse(f"{server.url}/nocreds")
    empty = {"REGISTRY_AUTH_FILE": str(tmp_path / "none.json")}
    with pytest.raises(
        registryauth.CredentialError,
        match=rf"^registry {host(server.url)} asks for credentials .* has none for it",
    ):
        registry.push(archive, target, environ=empty)
    assert manifest_status(server.url, "nocreds/auth-proof/data", "1") == 404
    # The command line says so too, without a traceback.
    monkeypatch.setenv("REGISTRY_AUTH_FILE", str(tmp_path / "none.json"))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: prod\n")
    argv = ["load-image", "--provider", "existing", "--name", str(kubeconfig)]
    assert cli.main([*argv, "--registry", target.base, str(archive)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: registry {host(server.url)} asks for credentials")
    assert "Traceback" not in err


def test_a_wrong_password_fails_naming_the_registry_and_the_user(
    server, archive, tmp_path
):
    config = docker_config(tmp_path / "auth.json", host(server.url), USER, "wrong")
    with pytest.raises(
        registryauth.CredentialError,
        match=rf"^registry {host(server.url)} refused the credentials of user "
        rf"'{USER}' from {config}",
    ):
        registry.push(
            archive,
            registry.Registry.parse(f"{server.url}/wrongpw"),
            environ={"REGISTRY_AUTH_FILE": str(config)},
        )
    assert manifest_status(server.url, "wrongpw/auth-proof/data", "1") == 404


def test_nothing_is_half_pushed_the_manifest_goes_last(server, archive, tmp_path):
    config = docker_config(tmp_path / "auth.json", host(server.url), USER, PASSWORD)
    env = {"REGISTRY_AUTH_FILE": str(config)}
    mark = len(server.log.read_text().splitlines())
    registry.push(archive, registry.Registry.parse(f"{server.url}/order"), environ=env)
    requests = [
        line
        for line in server.log.read_text().splitlines()[mark:]
        if '"/v2/order/' in line or "/v2/order/" in line
    ]
    answered = [line for line in requests if "response completed" in line]
    assert answered, f"no requests of the push in {server.log}"
    assert "/manifests/1" in answered[-1]
    assert not any("/manifests/" in line for line in answered[:-1])
    # A push that fails part-way (its last layer is not in the archive) sends nothing
    # and so leaves no tag.
    broken = tmp_path / "broken.tar"
    _drop_last_layer(archive, broken)
    with pytest.raises(registry.RegistryError, match="is missing"):
        registry.push(
            broken, registry.Registry.parse(f"{server.url}/broken"), environ=env
        )
    assert manifest_status(server.url, "broken/auth-proof/data", "1") == 404


def _drop_last_layer(archive: Path, out: Path) -> None:
    import io
    import tarfile

    with tarfile.open(archive) as tar:
        index = json.loads(tar.extractfile("index.json").read())  # type: ignore[union-attr]
        manifest_name = "blobs/sha256/" + index["manifests"][0]["digest"].split(":")[1]
        manifest = json.loads(tar.extractfile(manifest_name).read())  # type: ignore[union-attr]
        dropped = "blobs/sha256/" + manifest["layers"][-1]["digest"].split(":")[1]
        with tarfile.open(out, "w") as new:
            for member in tar.getmembers():
                if member.name != dropped:
                    new.addfile(member, io.BytesIO(tar.extractfile(member).read()))  # type: ignore[union-attr]


# -- the bearer-token flow on Distribution's token auth ---------------------------


class TokenService(http.server.BaseHTTPRequestHandler):
    """The token service a registry's Bearer challenge names, on loopback.

    Distribution's token auth only checks tokens: it needs a separate service to
    issue them. This one checks the basic credentials and issues an RS256 JWT for
    exactly the scope asked, signed with `openssl dgst` by the key whose public
    half is the registry's JWKS.
    """

    key: ClassVar[Path] = Path()
    scopes: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        scope = query.get("scope", [""])[0]
        self.scopes.append(scope)
        good = registryauth.Credentials(USER, PASSWORD, Path()).basic()
        if self.headers.get("Authorization") != good:
            self._reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}')
            return
        kind, name, actions = scope.split(":")
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "sub": USER,
            "aud": query.get("service", [""])[0],
            "exp": now + 300,
            "nbf": now - 10,
            "iat": now,
            "jti": f"{now}-{len(self.scopes)}",
            "access": [{"type": kind, "name": name, "actions": actions.split(",")}],
        }
        header = {"alg": "RS256", "typ": "JWT", "kid": KEY_ID}
        signed = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
        signature = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", str(self.key)],
            input=signed.encode(),
            capture_output=True,
            check=True,
        ).stdout
        token = f"{signed}.{b64url(signature)}"
        self._reply(200, json.dumps({"token": token}).encode())

    def _reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ISSUER, KEY_ID = "wpc-test-issuer", "wpc-test-key"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwks_of(key: Path) -> dict[str, object]:
    """The JWKS of an RSA key's public half (modulus from openssl, exponent 65537)."""
    modulus = subprocess.run(
        ["openssl", "rsa", "-in", str(key), "-noout", "-modulus"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    n = bytes.fromhex(modulus.removeprefix("Modulus="))
    return {
        "keys": [
            {"kty": "RSA", "kid": KEY_ID, "alg": "RS256", "use": "sig",
             "n": b64url(n), "e": b64url((65537).to_bytes(3, "big"))}
        ]
    }  # fmt: skip


@pytest.fixture(scope="module")
def token_registry(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[_registry.RunningRegistry]:
    """A Distribution registry with token auth, and its token service."""
    root = tmp_path_factory.mktemp("token-registry")
    TokenService.key = root / "key.pem"
    subprocess.run(
        ["openssl", "genrsa", "-out", str(TokenService.key), "2048"],
        capture_output=True,
        check=True,
    )
    (root / "jwks.json").write_text(json.dumps(jwks_of(TokenService.key)))
    service = http.server.ThreadingHTTPServer(
        ("127.0.0.1", loopback.free_port()), TokenService
    )
    thread = threading.Thread(target=service.serve_forever, daemon=True)
    thread.start()
    token = _registry.TokenAuth(
        realm=f"http://127.0.0.1:{service.server_address[1]}/token",
        service="wpc-test",
        issuer=ISSUER,
        jwks=root / "jwks.json",
    )
    try:
        with _registry.running(root, token=token) as running:
            yield running
    finally:
        service.shutdown()
        service.server_close()
        thread.join()


def test_the_token_flow_gets_a_token_per_scope_and_pushes(
    token_registry, archive, tmp_path
):
    config = docker_config(
        tmp_path / "auth.json", host(token_registry.url), USER, PASSWORD
    )
    TokenService.scopes.clear()
    pushed = registry.push(
        archive,
        registry.Registry.parse(f"{token_registry.url}/tokens"),
        environ={"REGISTRY_AUTH_FILE": str(config)},
    )
    assert pushed.digest == images_digest(str(archive))
    # A pull token for the first HEAD, traded for a push one at the first upload.
    # (Distribution names a scope's actions in no fixed order.)
    asked = [
        (s.rpartition(":")[0], sorted(s.rpartition(":")[2].split(",")))
        for s in TokenService.scopes
    ]
    assert asked == [
        ("repository:tokens/auth-proof/data", ["pull"]),
        ("repository:tokens/auth-proof/data", ["pull", "push"]),
    ]


def test_the_token_service_refusing_the_password_names_the_registry(
    token_registry, archive, tmp_path
):
    config = docker_config(
        tmp_path / "auth.json", host(token_registry.url), USER, "wrong"
    )
    with pytest.raises(
        registryauth.CredentialError,
        match=rf"^registry {host(token_registry.url)}: its token service .* refused "
        rf"user '{USER}'",
    ):
        registry.push(
            archive,
            registry.Registry.parse(f"{token_registry.url}/tokens-refused"),
            environ={"REGISTRY_AUTH_FILE": str(config)},
        )
