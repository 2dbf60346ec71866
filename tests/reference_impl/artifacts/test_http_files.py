"""busybox httpd serves a ConfigMap volume the way the HTTP artifact server does.

We test these aspects:
- the same command line as the manifest (`httpd -f -p PORT -h DIR`), over the
  layout the kubelet gives a ConfigMap volume (files are symlinks through
  `..data` into a timestamped directory), answers the known file with 200
  and its content;
- a missing file is a real 404, which HTTP input artifacts must surface.
Runs the host's busybox on 127.0.0.1: Debian's busybox-static at the path the test
image is built from (`clusters host-deps`, the first step of `make test`, installs it),
else busybox on PATH; skipped when neither is there. In the cluster the same applet
runs from the test image.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from plumbing import waiting
from reference_impl.artifacts import names
from reference_impl.images.settings import PackagingSettings

_PACKAGED = PackagingSettings.from_env().busybox
BUSYBOX = str(_PACKAGED) if _PACKAGED.is_file() else shutil.which("busybox") or ""
FILES = Path(names.__file__).parent / "manifests" / "http-files"

pytestmark = pytest.mark.skipif(
    not BUSYBOX,
    reason=f"busybox is neither at {_PACKAGED} nor on PATH: install busybox-static "
    "(`python -m clusters host-deps`, make test's first step, does)",
)


def _configmap_volume(root: Path) -> Path:
    """Lay files out as the kubelet does for a ConfigMap volume."""
    www = root / "www"
    data = www / "..2026_01_01_00_00_00.000000001"
    data.mkdir(parents=True)
    for source in FILES.iterdir():
        shutil.copyfile(source, data / source.name)
        (www / source.name).symlink_to(Path("..data") / source.name)
    (www / "..data").symlink_to(data.name)
    return www


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture
def httpd_port(tmp_path):
    www = _configmap_volume(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (tmp_path / "httpd.log").open("wb")
    process = subprocess.Popen(
        [BUSYBOX, "httpd", "-f", "-v", "-p", f"127.0.0.1:{port}", "-h", str(www)],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip

    def serving() -> tuple[int, bytes] | waiting.NotYet:
        if process.poll() is not None:
            pytest.fail(f"busybox httpd exited with {process.returncode}")
        try:
            return _get(port, "/")
        except OSError as exc:
            return waiting.NotYet(repr(exc))

    try:
        waiting.until(
            serving,
            timeout=10,
            interval=0.05,
            describe=f"busybox httpd on 127.0.0.1:{port}",
        )
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def test_the_known_file_is_served_with_its_content(httpd_port):
    status, body = _get(httpd_port, f"/{names.HTTP_KNOWN_FILE}")
    assert status == 200
    assert body.decode() == names.HTTP_KNOWN_CONTENT


def test_a_missing_file_is_a_real_404(httpd_port):
    status, _ = _get(httpd_port, "/no-such-artifact.txt")
    assert status == 404
