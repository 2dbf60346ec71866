"""We test these aspects of image build contexts:

a context holds the Dockerfile and a rootfs with the requested files, modes,
empty directories and symlinks; it is keyed by its inputs (same inputs, same
directory, reused as is; changed inputs, new directory); the test image links
every busybox applet; and every Dockerfile stays within the subset
`clusters build-image` reads (FROM scratch; COPY, ENV, ENTRYPOINT, CMD,
WORKDIR, USER, LABEL).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reference_impl.images import contexts
from reference_impl.images.settings import PackagingSettings

ALLOWED = {"FROM", "COPY", "ENV", "ENTRYPOINT", "CMD", "WORKDIR", "USER", "LABEL"}


def entries(binary: Path) -> list[contexts.RootFile]:
    return [
        contexts.RootFile("/bin/tool", source=binary),
        contexts.RootFile("/bin/alias", link="tool"),
        contexts.RootFile("/tmp", mode=0o1777),
    ]


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "tool"
    path.write_bytes(b"v1")
    return path


def test_context_holds_the_dockerfile_and_rootfs(tmp_path, binary):
    dockerfile = contexts.HERE / "executor" / "Dockerfile"
    ctx = contexts.assemble(
        name="x", dockerfile=dockerfile, entries=entries(binary), out=tmp_path / "out"
    )
    assert (ctx / "Dockerfile").read_bytes() == dockerfile.read_bytes()
    assert (ctx / "rootfs/bin/tool").read_bytes() == b"v1"
    assert (ctx / "rootfs/bin/tool").stat().st_mode & 0o777 == 0o755
    assert os.readlink(ctx / "rootfs/bin/alias") == "tool"
    assert (ctx / "rootfs/tmp").stat().st_mode & 0o7777 == 0o1777
    assert (ctx / contexts.STAMP).exists()


def test_unchanged_inputs_reuse_the_context(tmp_path, binary):
    dockerfile = contexts.HERE / "executor" / "Dockerfile"
    first = contexts.assemble(
        name="x", dockerfile=dockerfile, entries=entries(binary), out=tmp_path
    )
    (first / "marker").write_text("kept")
    second = contexts.assemble(
        name="x", dockerfile=dockerfile, entries=entries(binary), out=tmp_path
    )
    assert second == first
    assert (second / "marker").read_text() == "kept"


def test_changed_inputs_make_a_new_context(tmp_path, binary):
    dockerfile = contexts.HERE / "executor" / "Dockerfile"
    first = contexts.assemble(
        name="x", dockerfile=dockerfile, entries=entries(binary), out=tmp_path
    )
    binary.write_bytes(b"v2")
    second = contexts.assemble(
        name="x", dockerfile=dockerfile, entries=entries(binary), out=tmp_path
    )
    assert second != first
    assert (second / "rootfs/bin/tool").read_bytes() == b"v2"


def test_testimage_links_every_applet(tmp_path):
    fake = tmp_path / "busybox"
    fake.write_text("#!/bin/sh\nprintf 'sh\\nhttpd\\nnc\\nsleep\\nbusybox\\n'\n")
    fake.chmod(0o755)
    settings = PackagingSettings(cache_dir=tmp_path / "cache", busybox=fake)
    ctx = contexts.testimage(settings=settings, out=tmp_path / "out")
    bin_dir = ctx / "rootfs/bin"
    assert sorted(p.name for p in bin_dir.iterdir()) == [
        "busybox",
        "httpd",
        "nc",
        "sh",
        "sleep",
    ]
    assert os.readlink(bin_dir / "sh") == "busybox"


def test_the_real_busybox_has_the_applets_workflows_use():
    applets = set(contexts.busybox_applets(Path("/bin/busybox")))
    wanted = {
        "sh",
        "httpd",
        "nc",
        "sleep",
        "cat",
        "echo",
        "wget",
        "tar",
        "gzip",
        "kill",
        "pidof",
    }
    assert wanted <= applets


@pytest.mark.parametrize("name", ["executor", "controller", "testimage"])
def test_dockerfiles_use_only_the_supported_subset(name):
    lines = [
        line.split()[0]
        for line in (contexts.HERE / name / "Dockerfile").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "FROM"
    assert "FROM scratch" in (contexts.HERE / name / "Dockerfile").read_text()
    assert set(lines) <= ALLOWED
