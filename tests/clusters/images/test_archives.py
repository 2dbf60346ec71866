"""clusters.images.archives: the Dockerfile subset and the OCI archives it writes.

We test these aspects: supported instructions parse; anything else is an
error naming the line; archives are valid OCI layouts with the tag recorded;
builds are deterministic; `latest` and untagged refs are refused.
"""

from __future__ import annotations

import json
import tarfile

import pytest

from clusters.images import archives


def _context(tmp_path, dockerfile):
    (tmp_path / "bin").mkdir(parents=True)
    (tmp_path / "bin" / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "tool").chmod(0o755)
    (tmp_path / "bin" / "alias").symlink_to("tool")
    (tmp_path / "Dockerfile").write_text(dockerfile)
    return tmp_path


def test_the_supported_subset_parses():
    spec = archives.parse_dockerfile(
        'FROM scratch\nCOPY a b /x/\nENV A=1 B="two words"\nENV C 3\nLABEL k=v\n'
        'ENTRYPOINT ["/bin/x", "y"]\nCMD run now\nWORKDIR /w\nUSER 1000\n'
    )
    assert spec.copies == [(["a", "b"], "/x/")]
    assert spec.env == {"A": "1", "B": "two words", "C": "3"}
    assert spec.entrypoint == ["/bin/x", "y"]
    assert spec.cmd == ["/bin/sh", "-c", "run now"]
    assert (spec.workdir, spec.user, spec.labels) == ("/w", "1000", {"k": "v"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FROM debian:12\n", "first instruction must be FROM scratch"),
        ("FROM scratch\nRUN true\n", "line 2: RUN is not supported"),
        ("FROM scratch\nCOPY --from=x a /b\n", "COPY takes"),
        ("FROM scratch\nFROM scratch\n", "multi-stage"),
        ("# only a comment\n", "no FROM scratch"),
    ],
)
def test_anything_outside_the_subset_is_an_error_naming_it(text, message):
    with pytest.raises(archives.DockerfileError, match=message):
        archives.parse_dockerfile(text)


def test_an_archive_is_an_oci_layout_with_its_tag_and_layers(tmp_path):
    ctx = _context(
        tmp_path / "ctx",
        'FROM scratch\nCOPY bin/ /bin/\nENV PATH=/bin\nENTRYPOINT ["/bin/tool"]\n',
    )
    out = tmp_path / "img.tar"
    digest = archives.build_image(context=ctx, tag="wpc.local/t:1", output=out)
    assert archives.image_name(out) == "wpc.local/t:1"
    with tarfile.open(out) as tar:
        names = tar.getnames()
        index = json.load(tar.extractfile("index.json"))
        manifest = json.load(tar.extractfile(f"blobs/sha256/{digest.split(':')[1]}"))
        config = json.load(
            tar.extractfile(
                f"blobs/sha256/{manifest['config']['digest'].split(':')[1]}"
            )
        )
    assert "oci-layout" in names
    assert index["manifests"][0]["digest"] == digest
    assert config["config"]["Entrypoint"] == ["/bin/tool"]
    assert config["config"]["Env"] == ["PATH=/bin"]
    assert len(manifest["layers"]) == len(config["rootfs"]["diff_ids"]) == 1


def test_builds_are_deterministic(tmp_path):
    ctx = _context(tmp_path / "ctx", "FROM scratch\nCOPY bin/ /bin/\n")
    first = archives.build_image(
        context=ctx, tag="wpc.local/t:1", output=tmp_path / "a.tar"
    )
    second = archives.build_image(
        context=ctx, tag="wpc.local/t:1", output=tmp_path / "b.tar"
    )
    assert first == second


@pytest.mark.parametrize(
    "tag", ["wpc.local/t:latest", "wpc.local/t", "localhost:5000/t"]
)
def test_latest_and_untagged_refs_are_refused(tmp_path, tag):
    ctx = _context(tmp_path / "ctx", "FROM scratch\nCOPY bin/ /bin/\n")
    with pytest.raises(archives.DockerfileError, match="explicit, non-latest tag"):
        archives.build_image(context=ctx, tag=tag, output=tmp_path / "x.tar")


def test_a_copy_source_outside_the_context_is_refused(tmp_path):
    ctx = _context(tmp_path / "ctx", "FROM scratch\nCOPY ../secret /x\n")
    (tmp_path / "secret").write_text("no")
    with pytest.raises(archives.DockerfileError, match="not in the context"):
        archives.build_image(
            context=ctx, tag="wpc.local/t:1", output=tmp_path / "x.tar"
        )
