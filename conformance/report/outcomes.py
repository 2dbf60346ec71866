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
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout


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
