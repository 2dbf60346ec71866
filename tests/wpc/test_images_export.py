"""We test `wpc images export DIR` (conformance/implementations/exporting.py):

- the images are the suite's tools image and every image the profile's `prepare`
  commands load with `load-images` (for the reference: its controller, executor
  and test images, and the S3 server's), from the same build commands a run uses;
- each is written as an OCI image-layout tar, and `images.json` lists its name,
  tag, manifest digest and archive file, the digest being the archive's own;
- a DIR that is a file is an error naming it, exit 10.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from conformance.exitcodes import ExitCode
from conformance.implementations import exporting
from conformance.implementations import images
from conformance.implementations import profiles
from tests.conformance.conftest import PROFILE
from wpc import suite_cli


def test_the_reference_exports_the_tools_image_and_its_prepared_images(monkeypatch):
    monkeypatch.setenv("WPC_CACHE_DIR", "/cache")
    commands = exporting.build_commands(profiles.load("reference"))
    assert commands == [
        images.tools_command(),
        [sys.executable, "-m", "reference_impl.images", "build"],
        [
            sys.executable,
            "-m",
            "reference_impl.artifacts",
            "context",
            "--out",
            "/cache/contexts/s3",
        ],
    ]


def printer(tmp_path: Path, ref: str, text: str) -> list[str]:
    """A build command printing one `<ref> <context>` line for a one-file image."""
    context = tmp_path / text
    (context / "data").mkdir(parents=True)
    (context / "data" / "file.txt").write_text(text)
    (context / "Dockerfile").write_text("FROM scratch\nCOPY data/ /data/\n")
    return [sys.executable, "-c", f"print('{ref} {context}')"]


@pytest.fixture
def profile(tmp_path, monkeypatch) -> profiles.Profile:
    tools = printer(tmp_path, "wpc.local/wpc-tools:0.1.0", "tools")
    monkeypatch.setattr(images, "tools_command", lambda: tools)
    data = yaml.safe_load(PROFILE.read_text())
    data["commands"]["prepare"] = [
        ["true"],
        ["{python}", "-m", "conformance", "load-images", "--provider", "{provider}",
         "--cluster", "{cluster}", "--workdir", "{cache_dir}/images/x", "--",
         *printer(tmp_path, "example.test/team/executor:1.2.3", "executor")],
    ]  # fmt: skip
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump(data))
    return profiles.load(str(path))


def test_each_image_is_an_oci_archive_listed_with_its_digest(profile, tmp_path):
    out = tmp_path / "export"
    listing = exporting.export(profile, out)
    index = json.loads((out / exporting.INDEX).read_text())
    assert [(e["name"], e["tag"]) for e in index["images"]] == [
        ("example.test/team/executor", "1.2.3"),
        ("wpc.local/wpc-tools", "0.1.0"),
    ]
    assert index["images"] == [vars(entry) for entry in listing]
    for entry in index["images"]:
        archive = out / entry["archive"]
        with tarfile.open(archive) as tar:
            assert json.loads(tar.extractfile("oci-layout").read()) == {  # type: ignore[union-attr]
                "imageLayoutVersion": "1.0.0"
            }
        assert entry["digest"] == images.archive_digest(archive)
        assert entry["digest"].startswith("sha256:")


def test_the_command_prints_each_image_and_the_listing(profile, tmp_path, capsys):
    out = tmp_path / "export"
    argv = [
        "images",
        "export",
        str(out),
        "--implementation",
        str(tmp_path / "profile.yaml"),
    ]
    assert suite_cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == str(out / exporting.INDEX)
    assert lines[0].startswith("example.test/team/executor:1.2.3 sha256:")


def test_a_dir_that_is_a_file_is_refused_naming_it(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("")
    assert suite_cli.main(["images", "export", str(taken)]) == ExitCode.INVALID_INPUT
    assert f"{taken} exists and is not a directory" in capsys.readouterr().err
