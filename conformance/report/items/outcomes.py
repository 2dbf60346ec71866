"""The four outcomes of a conformance test, and which exception means which.

    passed   every phase passed
    failed   the test body found the implementation breaking a clause: an
             AssertionError, a WaitTimeout, or any other exception the body
             raised that is not a harness problem
    skipped  the implementation does not claim a feature the test needs
    error    the harness or the cluster broke: a HarnessError, a fixture
             (setup or teardown) failure, an API server 5xx, a lost connection

pytest itself only tells "error" from "failed" by phase; a broken API in the
middle of a test body would count against the implementation. `classify()`
fixes that, and the plugin shows the result in the terminal, the JUnit XML and
the ConformanceReport alike.

Beside the outcome, a failed or errored item has a *failure kind*
(`failure_kind()`), which the negative controls judge by (issue 11: a control is
caught by an assertion about its clause, not by any failure):

    assertion      an AssertionError in the test body; `failed_clauses()` are the
                   clause IDs its message names (the convention: an assertion
                   about a clause says which, e.g. "WPC-POD-003: no ownerReference")
    timeout        a `plumbing.errors.WaitTimeout` (the suite's is one, and also an
                   AssertionError: timeouts are checked first) or pytest-timeout
    harness-error  anything else, and any failure outside the test body
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from plumbing import errors as plumbing_errors

CLAUSE_ID = re.compile(r"WPC-[A-Z]+-\d{3}")
"""A spec clause ID as an assertion message names it."""
PYTEST_TIMEOUT = re.compile(r"^Timeout \(>[^)]*\) from pytest-timeout")
"""pytest-timeout's failure message (its `signal` method fails the test with it)."""


class Outcome(enum.StrEnum):
    """A test's verdict, as the report spells it."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"


def is_harness_problem(exc: BaseException) -> bool:
    """True when `exc` says the harness or the cluster broke, not the implementation."""
    if isinstance(exc, WaitTimeout):
        return False
    if isinstance(exc, HarnessError | ConnectionError):
        return True
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    if isinstance(exc, ApiException):
        status = exc.status or 0
        return status == 0 or status >= 500
    return isinstance(exc, HTTPError)


def classify(*, when: str, outcome: str, exc: BaseException | None) -> Outcome:
    """Map one pytest phase report to an Outcome."""
    if outcome == "skipped":
        return Outcome.SKIPPED
    if outcome == "passed":
        return Outcome.PASSED
    if when != "call":
        return Outcome.ERROR
    if exc is not None and is_harness_problem(exc):
        return Outcome.ERROR
    return Outcome.FAILED


def combine(phases: Iterable[tuple[str, Outcome]]) -> Outcome:
    """A test's final outcome from its (phase, outcome) pairs.

    A failed body wins over a teardown error: the clause verdict matters most,
    and the teardown error stays visible in the report's message.
    """
    seen = dict(phases)
    if seen.get("call") is Outcome.FAILED:
        return Outcome.FAILED
    values = set(seen.values())
    for outcome in (Outcome.ERROR, Outcome.SKIPPED):
        if outcome in values:
            return outcome
    return Outcome.PASSED


class FailureKind(enum.StrEnum):
    """Why a failed or errored item failed, as the report spells it."""

    ASSERTION = "assertion"
    TIMEOUT = "timeout"
    HARNESS_ERROR = "harness-error"


def is_timeout(exc: BaseException) -> bool:
    """True for a bounded wait that ran out: a WaitTimeout or pytest-timeout's failure."""
    if isinstance(exc, plumbing_errors.WaitTimeout):
        return True
    import pytest

    return isinstance(exc, pytest.fail.Exception) and bool(
        PYTEST_TIMEOUT.match(str(exc))
    )


def failure_kind(*, when: str, exc: BaseException | None) -> FailureKind:
    """The kind of one failed phase: timeouts first (the suite's is an AssertionError)."""
    if exc is not None and is_timeout(exc):
        return FailureKind.TIMEOUT
    if when == "call" and isinstance(exc, AssertionError):
        return FailureKind.ASSERTION
    return FailureKind.HARNESS_ERROR


def failed_clauses(kind: FailureKind, exc: BaseException | None) -> list[str]:
    """Clause IDs an assertion's message names, in order, once each; none otherwise.

    The whole text of the AssertionError counts (with pytest's assertion rewriting,
    the message and then the failed expression): it is what the assertion said.
    """
    if kind is not FailureKind.ASSERTION or exc is None:
        return []
    return list(dict.fromkeys(CLAUSE_ID.findall(str(exc))))
