"""The one place activity failures are classified.

chaoslib's `run_python_activity` wraps user code once; this wraps ours once,
before it.

`@activity` records every failure in the session: `expectation` when the system
under test did not do what it must (a wait for its state ran out, an
`Unexpected`), `unsupported` when the provider cannot inject the fault, and
`error` for anything else (the harness or the cluster broke). The exception
is re-raised unchanged, so chaostoolkit's journal shows it too. The outcome
of the experiment (`chaos.lifecycle.judging`) is computed from these records, not from
the journal's strings.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any
from typing import ParamSpec
from typing import TypeVar

from chaos import sessions
from chaos.errors import SessionError
from chaos.errors import Unsupported
from plumbing.errors import WaitTimeout

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

EXPECTATION = "expectation"
UNSUPPORTED = "unsupported"
ERROR = "error"


def classify(exc: BaseException) -> str:
    """`expectation`, `unsupported` or `error` for an activity's exception."""
    if isinstance(exc, Unsupported):
        return UNSUPPORTED
    if isinstance(exc, WaitTimeout | AssertionError):
        return EXPECTATION
    return ERROR


def activity(func: Callable[P, R]) -> Callable[P, R]:
    """Record a failure of `func` in its session (found through `configuration`)."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            configuration: Any = kwargs.get("configuration")
            try:
                session = sessions.current(configuration)
            except SessionError:
                raise exc from None
            kind = classify(exc)
            message = f"{type(exc).__name__}: {exc}"
            session.failures.append(sessions.Failure(func.__name__, kind, message))
            logger.warning(
                "[%s] Activity %s failed (%s): %s",
                session.experiment,
                func.__name__,
                kind,
                message,
            )
            raise

    return run
