"""Text files a user names on the command line: read bounded, written only where named.

A profile or a report comes from anyone. Read whole and decoded by default, a
300 MB file took minutes and memory before any check, and a file that is not
UTF-8 ended in a UnicodeDecodeError traceback. `read` stops after `limit` bytes
and says so, and names the file in every error. `write` refuses a directory and
a missing parent directory instead of creating it: a typo in an output path is
the user's to see, not a tree of directories to find later.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MIB = 1024 * 1024


class TextFileError(Exception):
    """A named file cannot be read or written as asked; the message names it."""


def read(path: Path, *, limit: int, what: str) -> str:
    """The UTF-8 text of `path`, at most `limit` bytes; TextFileError naming it if not.

    `what` is what the file should be ("implementation profile"), for the message.
    Only regular files are read: a FIFO or a device would block or never end.
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise TextFileError(_cannot(path, f"read the {what}", exc)) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TextFileError(f"{path}: cannot read the {what}: not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise TextFileError(_cannot(path, f"read the {what}", exc)) from exc
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise TextFileError(
            f"{path}: the {what} is larger than the limit of {_size(limit)}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextFileError(
            f"{path}: the {what} is not UTF-8 text: byte 0x{data[exc.start]:02x} "
            f"at offset {exc.start}"
        ) from exc


def write(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8; TextFileError for a directory or missing parent."""
    if path.is_dir():
        raise TextFileError(f"{path}: is a directory; name a file to write")
    if not path.parent.is_dir():
        raise TextFileError(
            f"{path}: the directory {path.parent} does not exist; create it first"
        )
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TextFileError(_cannot(path, "write", exc)) from exc


def _cannot(path: Path, doing: str, exc: OSError) -> str:
    return f"{path}: cannot {doing}: {exc.strerror or exc}"


def _size(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit} bytes"
