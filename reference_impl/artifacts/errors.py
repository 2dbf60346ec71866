"""Errors of the artifact package; each carries the evidence to debug it.

ArtifactError                 root of everything raised here
└── BuildError                a build command failed (a plumbing CommandFailed:
                              command, exit code, last log lines, log path)

A failing S3 request is `reference_impl.s3.errors.S3Error`: the client ships
in the executor, apart from this tooling.
"""

from __future__ import annotations

from plumbing.errors import CommandFailed


class ArtifactError(Exception):
    """Root of the errors raised by `reference_impl.artifacts`."""


class BuildError(ArtifactError, CommandFailed):
    """A build command exited non-zero; the message is pasteable as it stands."""
