"""A fault of commission's `files` hook, carried out on disk.

Negative controls only: a row of `commission_table` whose `files` entries give a
file the executor leaves for others another mode, or rewrite its text once its
writer is done (`commission.file_mode`, `commission.rewrite_file` decide what;
this module does the I/O). Without such a row nothing here touches the disk.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from reference_impl import commission

logger = logging.getLogger(__name__)


def set_mode(
    fault: commission.Fault | None, file: str, path: Path, *, container: str
) -> None:
    """Give `path` (the `file` role) the row's mode, if the row has one for it."""
    mode = commission.file_mode(fault, file, container=container)
    if mode is None:
        return
    logger.warning("Fault of commission: %s gets mode %o.", path, mode)
    os.chmod(path, mode)


def rewrites(fault: commission.Fault | None, file: str, *, container: str) -> bool:
    """Whether the row has a `files` entry for `file` in this container's executor."""
    return fault is not None and any(e.applies(file, container) for e in fault.files)


def rewrite(
    fault: commission.Fault | None, file: str, path: Path, *, container: str
) -> None:
    """Rewrite `path` (the `file` role) as the row says.

    A missing file stays missing and a directory (an unpacked archive) as it is.
    """
    if not rewrites(fault, file, container=container) or not path.is_file():
        return
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    changed = commission.rewrite_file(fault, file, text, container=container)
    if changed != text:
        logger.warning("Fault of commission: rewriting %s.", path)
        path.write_bytes(changed.encode("utf-8", "surrogateescape"))
