"""`when` conditions of steps and DAG tasks, decided as Argo decides them (#13).

Argo substitutes the condition's variables, then evaluates it with govaluate after turning
every bare word into a string, so `heads == heads` is true without quotes
(`workflow/controller/steps.go` `shouldExecute`). A false condition skips the step with
`when '<condition>' evaluated false`; a condition govaluate rejects fails with one of the
messages below, each as upstream words it (including its `expresion`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from reference_impl.controller import errors
from reference_impl.controller.formats import gojson
from reference_impl.controller.formats import govaluate_stages as stages
from reference_impl.controller.formats import govaluate_tokens as tokens


def skipped_message(when: str) -> str:
    """Return the message of a node skipped by its condition."""
    return f"when '{when}' evaluated false"


def should_execute(when: str) -> bool:
    """Return whether an already substituted condition holds; an empty one always does.

    Raises WorkflowError with upstream's message when govaluate cannot parse or evaluate
    it, or when it is not a boolean.
    """
    if when == "":
        return True
    try:
        parsed, _ = _compile(tokens.tokenize(when))
    except tokens.ExpressionError as err:
        hint = (
            ' (hint: try wrapping the affected expression in quotes ("))'
            if "Invalid token" in str(err)
            else ""
        )
        raise errors.WorkflowError(
            f"Invalid 'when' expression '{when}': {err}{hint}"
        ) from None
    as_strings = [
        tokens.Token(tokens.STRING, t.value) if t.kind == tokens.VARIABLE else t
        for t in parsed
    ]
    with _failing_as(f"Failed to parse 'when' expression '{when}'"):
        tokens.check_balance(as_strings)
        _, plan = _compile(as_strings)
    with _failing_as(f"Failed to evaluate 'when' expresion '{when}'"):
        result = stages.evaluate(plan)
    if not isinstance(result, bool):
        raise errors.WorkflowError(
            f"Expected boolean evaluation for '{when}'. Got {gojson.format_v(result)}"
        )
    return result


@contextlib.contextmanager
def _failing_as(message: str) -> Iterator[None]:
    """Turn govaluate's error in the block into `<message>: <error>`, as upstream words it."""
    try:
        yield
    except tokens.ExpressionError as err:
        raise errors.WorkflowError(f"{message}: {err}") from None


def _compile(
    checked: list[tokens.Token],
) -> tuple[list[tokens.Token], stages.Stage | None]:
    """Check the syntax, compile patterns and plan, as `NewEvaluableExpression*` do."""
    tokens.check_syntax(checked)
    optimized = tokens.optimize(checked)
    return optimized, stages.plan(optimized)
