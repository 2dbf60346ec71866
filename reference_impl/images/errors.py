"""Errors of the image preparation; each carries the evidence to debug it.

ImageError              root
├── SourceError         the program imports something that cannot be packaged
├── BuildError          a packaging command failed (a plumbing CommandFailed:
│                       command, exit code, last log lines, log path)
└── BundleError         a built executor bundle does not start as it must
"""

from __future__ import annotations

from plumbing.errors import CommandFailed


class ImageError(Exception):
    """Root of the errors raised by `reference_impl.images`."""


class SourceError(ImageError):
    """A module or distribution the program needs cannot be found."""


class BuildError(ImageError, CommandFailed):
    """A packaging command exited non-zero; the message is pasteable as it stands."""


class BundleError(ImageError):
    """The built bundle ran but did not behave; the message quotes what it did."""
