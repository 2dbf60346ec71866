"""We test these aspects of input artifacts (contract 1.5, upstream loadArtifacts):

raw, HTTP (a loopback server) and S3 (a fake store, location merged with the
archiveLocation) drivers; tarballs unpacked by Argo's single-entry rule, left
alone with `archive: none`; entries escaping the destination refused; `mode`
applied; optional artifacts skipped when unsupplied or not found; required ones
fail with Argo's message; paths on user volumes go through /mainctrfs. Issue 29:
an archive whose single entry links back in through its own name is refused
before `recurseMode` could change a sibling's mode; `recurseMode` skips links; a
link planted at `<dest>.tmp` never redirects a download (raw, HTTP, S3), and a
failed download leaves no temporary.
"""

from __future__ import annotations

import http.server
import io
import os
import stat
import tarfile
import threading
from pathlib import Path
from typing import Any

import pytest

from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.protocol import Paths
from reference_impl.executor.staging import loading
from reference_impl.executor.templates import Template
from tests.reference_impl.executor.conftest import FakeStore


def tgz(entries: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return buf.getvalue()


def load(
    paths: Paths, store: FakeStore, *artifacts: dict[str, Any], **template: Any
) -> None:
    loading.load_all(
        template=Template(raw={"inputs": {"artifacts": list(artifacts)}, **template}),
        paths=paths,
        stores_for=store.factory,
    )


def test_raw_artifact_is_written(paths, store):
    load(paths, store, {"name": "a", "path": "/in/a", "raw": {"data": "hello"}})
    assert paths.input_artifact("a").read_text() == "hello"


def test_mode_is_applied(paths, store):
    load(
        paths,
        store,
        {"name": "a", "path": "/in/a", "raw": {"data": "x"}, "mode": 0o600},
    )
    assert paths.input_artifact("a").stat().st_mode & 0o777 == 0o600


def test_required_artifact_without_location_fails(paths, store):
    with pytest.raises(ArtifactError, match="required artifact 'a' not supplied"):
        load(paths, store, {"name": "a", "path": "/in/a"})


def test_optional_artifact_without_location_is_skipped(paths, store):
    load(paths, store, {"name": "a", "path": "/in/a", "optional": True})
    assert not paths.input_artifact("a").exists()


def s3_repo() -> dict[str, Any]:
    return {
        "archiveLocation": {"s3": {"endpoint": "s3:9000", "bucket": "b", "key": "wf/x"}}
    }


def test_s3_artifact_uses_the_archive_location(paths, store):
    store.objects[("b", "k/one.tgz")] = tgz({"one.txt": b"1"})
    load(
        paths,
        store,
        {"name": "a", "path": "/in/a", "s3": {"key": "k/one.tgz"}},
        **s3_repo(),
    )
    assert paths.input_artifact("a").read_text() == "1"
    assert store.locations == [
        {"endpoint": "s3:9000", "bucket": "b", "key": "k/one.tgz"}
    ]


def test_tarball_with_many_entries_becomes_a_directory(paths, store):
    store.objects[("b", "k")] = tgz({"x": b"1", "y": b"2"})
    load(paths, store, {"name": "a", "path": "/in/a", "s3": {"key": "k"}}, **s3_repo())
    assert sorted(p.name for p in paths.input_artifact("a").iterdir()) == ["x", "y"]


def test_archive_none_keeps_the_tarball(paths, store):
    data = tgz({"x": b"1"})
    store.objects[("b", "k")] = data
    art = {"name": "a", "path": "/in/a", "s3": {"key": "k"}, "archive": {"none": {}}}
    load(paths, store, art, **s3_repo())
    assert paths.input_artifact("a").read_bytes() == data


def test_escaping_entries_are_refused(paths, store):
    store.objects[("b", "k")] = tgz({"../evil": b"1"})
    with pytest.raises(ArtifactError, match="illegal file path"):
        load(
            paths,
            store,
            {"name": "a", "path": "/in/a", "s3": {"key": "k"}},
            **s3_repo(),
        )
    assert not (paths.at("/argo/inputs/evil")).exists()


def test_optional_artifact_not_found_is_skipped(paths, store):
    art = {"name": "a", "path": "/in/a", "s3": {"key": "missing"}, "optional": True}
    load(paths, store, art, **s3_repo())
    assert not paths.input_artifact("a").exists()


def test_required_artifact_not_found_fails(paths, store):
    with pytest.raises(ArtifactError, match="missing"):
        load(
            paths,
            store,
            {"name": "a", "path": "/in/a", "s3": {"key": "missing"}},
            **s3_repo(),
        )


def test_artifact_on_a_user_volume_is_written_through_mainctrfs(paths, store):
    load(
        paths,
        store,
        {"name": "a", "path": "/work/a.txt", "raw": {"data": "v"}},
        container={"volumeMounts": [{"name": "w", "mountPath": "/work"}]},
    )
    assert paths.main_fs("/work/a.txt").read_text() == "v"
    assert not paths.input_artifact("a").exists()


def test_unsupported_driver_is_an_error(paths, store):
    with pytest.raises(ArtifactError, match="Unsupported artifact driver for a"):
        load(paths, store, {"name": "a", "path": "/in/a", "git": {"repo": "x"}})


@pytest.fixture
def http_server():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/file.txt" and self.headers.get("X-Token") == "t":
                body = b"from http"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path == "/boom":
                self.send_error(500)
            else:
                self.send_error(404)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_http_artifact_is_fetched_with_headers(paths, store, http_server):
    art = {
        "name": "a",
        "path": "/in/a",
        "http": {
            "url": f"{http_server}/file.txt",
            "headers": [{"name": "X-Token", "value": "t"}],
        },
    }
    load(paths, store, art)
    assert paths.input_artifact("a").read_text() == "from http"


def test_optional_http_artifact_not_found_is_skipped(paths, store, http_server):
    art = {
        "name": "a",
        "path": "/in/a",
        "http": {"url": f"{http_server}/nope"},
        "optional": True,
    }
    load(paths, store, art)
    assert not paths.input_artifact("a").exists()


def test_a_required_http_artifact_not_found_fails_with_upstreams_words(
    paths, store, http_server
):
    """upstream: executor.go loadArtifact wraps http.go's `404 Not Found`."""
    art = {"name": "a", "path": "/in/a", "http": {"url": f"{http_server}/nope"}}
    with pytest.raises(ArtifactError) as caught:
        load(paths, store, art)
    assert str(caught.value) == "artifact a failed to load: 404 Not Found"


def test_an_http_server_error_names_the_url_and_status(paths, store, http_server):
    art = {"name": "a", "path": "/in/a", "http": {"url": f"{http_server}/boom"}}
    with pytest.raises(ArtifactError) as caught:
        load(paths, store, art)
    assert str(caught.value) == (
        f"artifact a failed to load: loading content from {http_server}/boom "
        "failed with reason: 500 Internal Server Error"
    )


def test_a_missing_s3_object_is_wrapped_as_upstream_wraps_any_load_error(paths, store):
    with pytest.raises(ArtifactError) as caught:
        load(
            paths,
            store,
            {"name": "a", "path": "/in/a", "s3": {"key": "missing"}},
            **s3_repo(),
        )
    assert str(caught.value).startswith("artifact a failed to load: ")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)


def test_recurse_mode_cannot_reach_a_sibling_through_the_single_entry_rename(
    paths, store
):
    # Issue 29, as reproduced: `secret/k -> ../secret/key` is inside `secret` while
    # staged; renamed to `a`, it names the artifact `secret`'s key, which the
    # recursive chmod then made 0777 through the link.
    store.objects[("b", "secret")] = tgz({"secret/key": b"key"})
    store.objects[("b", "evil")] = tgz(
        {"secret/x": b"x"}, links={"secret/k": "../secret/key"}
    )
    secret = {"name": "secret", "path": "/in/s", "s3": {"key": "secret"}}
    evil = {
        "name": "a",
        "path": "/in/a",
        "s3": {"key": "evil"},
        "mode": 0o777,
        "recurseMode": True,
    }
    key = paths.input_artifact("secret") / "key"
    with pytest.raises(ArtifactError, match=r"illegal symlink target: secret/k"):
        load(
            paths,
            store,
            {**secret, "mode": 0o600, "recurseMode": True},
            evil,
            **s3_repo(),
        )
    assert mode_of(key) == 0o600
    assert key.read_bytes() == b"key"
    assert not paths.input_artifact("a").exists()


def test_recurse_mode_skips_links_and_reaches_their_targets_in_the_tree(paths, store):
    # Upstream's chmod follows each link (and fails on a dangling one); here a link
    # is skipped, and an in-tree target gets the mode in its own turn.
    store.objects[("b", "k")] = tgz(
        {"d/f": b"f", "d/sub/g": b"g"},
        links={"d/l": "f", "d/sub/up": "..", "d/dangling": "not-there"},
    )
    art = {"name": "a", "path": "/in/a", "s3": {"key": "k"}}
    load(paths, store, {**art, "mode": 0o700, "recurseMode": True}, **s3_repo())
    root = paths.input_artifact("a")
    for path in (root, root / "f", root / "sub", root / "sub" / "g"):
        assert mode_of(path) == 0o700, path
    assert os.readlink(root / "dangling") == "not-there"


def planted(paths: Paths, tmp_path: Path, *, dangling: bool) -> tuple[Path, Path]:
    """A link at the artifact `a`'s `<dest>.tmp` to a victim outside; both paths."""
    victim = tmp_path / "victim"
    if not dangling:
        victim.write_bytes(b"victim")
    tmp = paths.input_artifact("a").with_name("a.tmp")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.symlink_to(victim)
    return tmp, victim


@pytest.mark.parametrize("driver", ["raw", "http", "s3"])
@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_planted_at_the_temporary_never_redirects_the_download(
    paths, store, tmp_path, request, driver, dangling
):
    location: dict[str, Any] = {
        "raw": {"raw": {"data": "from http"}},
        "s3": {"s3": {"key": "k"}},
    }.get(driver, {})
    if driver == "http":
        server = request.getfixturevalue("http_server")
        location = {
            "http": {
                "url": f"{server}/file.txt",
                "headers": [{"name": "X-Token", "value": "t"}],
            }
        }
    store.objects[("b", "k")] = b"from http"
    tmp, victim = planted(paths, tmp_path, dangling=dangling)
    probe = tmp_path / "umask-probe"
    probe.touch()
    load(paths, store, {"name": "a", "path": "/in/a", **location}, **s3_repo())
    art = paths.input_artifact("a")
    assert not art.is_symlink()
    assert art.read_bytes() == b"from http"
    assert mode_of(art) == mode_of(probe)  # 0666 less the umask, as os.Create
    assert not os.path.lexists(tmp)
    if dangling:
        assert not os.path.lexists(victim)
    else:
        assert victim.read_bytes() == b"victim"


def test_a_failed_download_leaves_no_temporary(paths, store):
    art = {"name": "a", "path": "/in/a", "s3": {"key": "missing"}, "optional": True}
    load(paths, store, art, **s3_repo())
    assert list(paths.input_artifact("a").parent.iterdir()) == []


def test_a_directory_at_the_temporary_is_a_clear_error(paths, store):
    tmp = paths.input_artifact("a").with_name("a.tmp")
    (tmp / "inside").mkdir(parents=True)
    with pytest.raises(ArtifactError, match=r"artifact a failed to load: .*a\.tmp"):
        load(paths, store, {"name": "a", "path": "/in/a", "raw": {"data": "x"}})
    assert (tmp / "inside").is_dir()
    assert not paths.input_artifact("a").exists()
