"""Errors of the image preparation; each carries the evidence to debug it.

ImageError              root
├── SourceError         the program imports something that cannot be packaged
└── BuildError          a packaging command failed (command, exit code, log tail, log path)
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path


class ImageError(Exception):
    """Root of the errors raised by `reference_impl.images`."""


class SourceError(ImageError):
    """A module or distribution the program needs cannot be found."""


class BuildError(ImageError):
    """A packaging command exited non-zero; the message is pasteable as it stands."""

    def __init__(
        self,
        *,
        command: Sequence[str],
        returncode: int,
        log_tail: Sequence[str],
        log_path: Path,
    ) -> None:
        self.command = tuple(command)
        self.returncode = returncode
        self.log_tail = tuple(log_tail)
        self.log_path = log_path
        tail = "\n".join(self.log_tail)
        super().__init__(
            f"command failed with exit code {returncode}: {shlex.join(self.command)}\n"
            f"log: {log_path}\nlast {len(self.log_tail)} log lines:\n{tail}"
        )
