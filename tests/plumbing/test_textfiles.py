"""We test `plumbing.textfiles`, the reading and writing of files a user names:

- `read` returns the UTF-8 text of a file up to its limit, and refuses, naming the
  file and what it should be, one larger than the limit (without reading it all),
  one that is not UTF-8 (the offending byte and its offset), a directory, a FIFO
  (without waiting for a writer) and a missing file;
- `write` writes a file, and refuses a directory and a missing parent directory,
  which it does not create.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from plumbing import textfiles


def test_a_utf8_file_within_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("name: café\n", encoding="utf-8")
    assert textfiles.read(path, limit=12, what="profile") == "name: café\n"


@pytest.mark.parametrize(
    ("limit", "said"), [(textfiles.MIB, "1 MiB"), (10, "10 bytes")]
)
def test_a_file_larger_than_the_limit_is_refused(
    tmp_path: Path, limit: int, said: str
) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * (limit + 1))
    with pytest.raises(
        textfiles.TextFileError,
        match=rf"^{path}: the profile is larger than the limit of {said}$",
    ):
        textfiles.read(path, limit=limit, what="profile")


def test_a_file_that_is_not_utf8_is_refused_naming_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: café\n".encode("latin-1"))
    with pytest.raises(
        textfiles.TextFileError,
        match=rf"^{path}: the report is not UTF-8 text: byte 0xe9 at offset 9$",
    ):
        textfiles.read(path, limit=100, what="report")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    with pytest.raises(textfiles.TextFileError, match="not a regular file"):
        textfiles.read(path, limit=100, what="profile")


@pytest.mark.parametrize("name", ["missing.yaml", "."])
def test_a_missing_file_or_a_directory_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with pytest.raises(
        textfiles.TextFileError, match=rf"^{path}: cannot read the profile"
    ):
        textfiles.read(path, limit=100, what="profile")


def test_write_writes_utf8(tmp_path: Path) -> None:
    textfiles.write(tmp_path / "out.yaml", "é\n")
    assert (tmp_path / "out.yaml").read_bytes() == "é\n".encode()


def test_write_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(textfiles.TextFileError, match=rf"^{tmp_path}: is a directory"):
        textfiles.write(tmp_path, "x")


def test_write_never_creates_a_missing_parent(tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "out.yaml"
    with pytest.raises(
        textfiles.TextFileError,
        match=rf"the directory {tmp_path / 'no' / 'such'} does not exist",
    ):
        textfiles.write(out, "x")
    assert not (tmp_path / "no").exists()
