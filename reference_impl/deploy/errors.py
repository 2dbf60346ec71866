"""Errors of the deploy tool; the command line prints them and exits 1.

DeployError           root
└── KubectlError      kubectl exited non-zero (a plumbing CommandFailed: command
                      line, exit code, output)

A malformed `set-config` key or value is a `ValueError`, raised before any
command runs.
"""

from __future__ import annotations

from plumbing.errors import CommandFailed


class DeployError(Exception):
    """Root of the errors raised by `reference_impl.deploy`."""


class KubectlError(DeployError, CommandFailed):
    """kubectl exited non-zero; the message is pasteable as it stands."""
