"""Errors raised by the conformance suite.

One root, so callers can catch everything this package raises; the outcome
mapping (`conformance.report.items.outcomes`) turns each branch into a test outcome::

    ConformanceError
    ├── DataError        a data file (profile, divergences, marker) is invalid;
    │                    the message names the file and the key
    ├── HarnessError     the harness or the cluster broke          -> outcome "error"
    │   ├── CommandError a profile command exited non-zero (command line,
    │   │                exit code, output tail, log path; also a
    │   │                `plumbing.errors.CommandFailed`)
    │   ├── ClusterRefused  the cluster lacks the WPC marker (see --allow-foreign-cluster),
    │   │   │               or is not fit for the run as it is
    │   │   └── InstanceTaken  another controller serves, or another run holds, an
    │   │                      instance ID of the run (`conformance.implementations.ownership`)
    │   └── ResourceGone a watch's resourceVersion was compacted (HTTP 410);
    │                    internal: the recorders' engine (`harness.cluster.listwatch`)
    │                    answers it by listing again
    ├── WaitTimeout      an awaited state was not reached in time  -> outcome "failed"
    │                    (also an AssertionError: the implementation did not do
    │                    what the clause requires within its limit; and a
    │                    `plumbing.errors.WaitTimeout`)
    └── BenchError       the benchmark (`wpc.bench`) cannot measure what it
        │                promises
        ├── MarkerError  the user command's start or end marker is missing or
        │                malformed (the log tail is in the message)
        └── ClockError   the pod's boot clock is not this host's, so the node is
                         another machine and the boot-clock method does not apply

`conformance.spec.SpecError` (the spec loader's error) is separate: a broken
spec is a suite bug and stops collection.
"""

from __future__ import annotations

from plumbing import errors as plumbing_errors


class ConformanceError(Exception):
    """Root of every error raised by the conformance package."""


class DataError(ConformanceError):
    """A data file the suite reads is invalid; the message names file and key."""


class HarnessError(ConformanceError):
    """The harness or the cluster broke, so the test proves nothing either way."""


class CommandError(HarnessError, plumbing_errors.CommandFailed):
    """A profile command (install, restart, ...) exited non-zero.

    Built like `plumbing.errors.CommandFailed` (command, exit code, output,
    log path), so `plumbing.commands` raises it directly through `error=`.
    """


class ClusterRefused(HarnessError):
    """The run refuses the cluster: not one WPC made (and not allowed), or not fit as it is."""


class ResourceGone(HarnessError):
    """The watch's resourceVersion is too old (410 Gone): list again."""


class WaitTimeout(ConformanceError, plumbing_errors.WaitTimeout, AssertionError):
    """An awaited state was not reached: what, for how long, last observed.

    An AssertionError too: within a test body it is the implementation that did
    not do what a clause requires in time (outcome "failed", not "error").
    """


class BenchError(ConformanceError):
    """The benchmark cannot measure what it promises; the message says why."""


class MarkerError(BenchError):
    """The user command's marker is missing from its log or cannot be parsed."""


class ClockError(BenchError):
    """The container's boot clock disagrees with this host's: not the same machine."""
