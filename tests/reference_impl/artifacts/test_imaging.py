"""The S3 server image: a FROM scratch Dockerfile and its prepared context.

We test these aspects:
- the Dockerfile uses only the instructions `clusters build-image` writes
  without a Docker engine, starts FROM scratch and copies the server;
- prepare_context copies the Dockerfile and an executable server, and clears
  anything stale from a reused directory;
- the image reference is versioned, never `latest`;
- the CLI prints `<ref> <context-dir>`.
"""

from __future__ import annotations

import os
import stat

from reference_impl.artifacts import __main__ as cli
from reference_impl.artifacts import building
from reference_impl.artifacts import imaging
from reference_impl.artifacts import pins

ALLOWED = {"FROM", "COPY", "ENV", "ENTRYPOINT", "CMD", "WORKDIR", "USER", "LABEL"}


def _instructions() -> list[str]:
    text = imaging.DOCKERFILE.read_text().replace("\\\n", " ")
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_dockerfile_is_from_scratch_with_allowed_instructions_only():
    lines = _instructions()
    assert lines[0] == "FROM scratch"
    assert {line.split()[0] for line in lines} <= ALLOWED
    assert f"COPY {pins.SERVER_BINARY} /bin/{pins.SERVER_BINARY}" in lines
    assert any(line.startswith('ENTRYPOINT ["/bin/versitygw"]') for line in lines)


def test_the_image_reference_is_versioned():
    assert imaging.IMAGE == "wpc.local/reference/s3:0.1.0"
    assert not imaging.IMAGE.endswith(":latest")


def test_prepare_context_copies_the_dockerfile_and_an_executable_server(tmp_path):
    binary = tmp_path / "built"
    binary.write_bytes(b"\x7fELF fake")
    out = tmp_path / "ctx"
    (out / "old-dir").mkdir(parents=True)
    (out / "stale.txt").write_text("x")
    assert imaging.prepare_context(binary=binary, out_dir=out) == out
    assert sorted(p.name for p in out.iterdir()) == ["Dockerfile", pins.SERVER_BINARY]
    server = out / pins.SERVER_BINARY
    assert server.read_bytes() == b"\x7fELF fake"
    assert stat.S_IMODE(server.stat().st_mode) == 0o755
    assert (out / "Dockerfile").read_text() == imaging.DOCKERFILE.read_text()


def test_cli_context_prints_the_reference_and_directory(tmp_path, monkeypatch, capsys):
    binary = tmp_path / "bin" / "versitygw"
    binary.parent.mkdir()
    binary.write_bytes(b"fake")
    monkeypatch.setattr(building, "build", lambda settings, force=False: binary)
    out = tmp_path / "ctx"
    assert cli.main(["context", "--out", os.fspath(out)]) == 0
    assert capsys.readouterr().out == f"{imaging.IMAGE} {out}\n"
    assert (out / pins.SERVER_BINARY).read_bytes() == b"fake"
