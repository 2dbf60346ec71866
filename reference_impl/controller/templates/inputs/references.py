"""Resolving a step's or task's references before it runs, `when` first (#13).

Mirrors upstream's `resolveReferences` (`workflow/controller/steps.go`) and
`resolveDependencyReferences` (`workflow/controller/dag.go`): the `when` condition is
substituted and decided before anything else, so a step that will be skipped need not have
its other references resolvable; a condition govaluate rejects fails the step unless the
step loops (its condition may still hold `{{item}}`, decided per item later). Then the
arguments and the loop fields (`withParam: "{{steps.gen.outputs.result}}"`) are resolved.
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import substitution
from reference_impl.controller.templates.inputs import arguments
from reference_impl.controller.templates.inputs import conditions
from reference_impl.controller.templates.inputs import loops
from reference_impl.controller.templates.inputs import scopes

Json = dict[str, Any]

# Upstream resolves a step with `ReplaceStrictAny(..., []string{"steps", "tasks"})`: an
# expression reading a missing `steps.*`/`tasks.*` variable fails instead of waiting.
STRICT = ("steps", "tasks")


class WhenError(errors.WorkflowError):
    """A step's condition could not be decided (steps prefix `failed to resolve references: `)."""


def resolve(step: Json, scope: scopes.Scope) -> Json:
    """Return a copy of a step or task with its references resolved.

    Raises WhenError for an undecidable condition of a step without a loop, and
    WorkflowError `failed to resolve {{...}}` for a reference that cannot be resolved.
    """
    resolved = copy.deepcopy(step)
    when = str(step.get("when") or "")
    if when:
        when = _strict(when, scope.params)
        resolved["when"] = when
        try:
            if not conditions.should_execute(when):
                return resolved
        except errors.WorkflowError as err:
            if not loops.has_loop(step):
                raise WhenError(str(err)) from None
    resolved["arguments"] = arguments.resolve_arguments(
        step.get("arguments") or {}, scope.params, scope.artifacts
    )
    for field in loops.LOOP_FIELDS:
        if step.get(field) is not None:
            resolved[field] = substitution.substitute_tree(
                step[field], scope.params, STRICT
            )
            for tag in substitution.unresolved(resolved[field]):
                if tag.strip("{} ").startswith(("steps.", "tasks.")):
                    raise errors.WorkflowError(f"failed to resolve {tag}")
    return resolved


def _strict(text: str, params: dict[str, str]) -> str:
    substituted = substitution.substitute_text(text, params, STRICT)
    for tag in substitution.unresolved(substituted):
        if tag.strip("{} ").startswith(("steps.", "tasks.")):
            raise errors.WorkflowError(f"failed to resolve {tag}")
    return substituted


def expand(step: Json, params: dict[str, str]) -> list[Json]:
    """Return the steps a resolved step stands for: itself, or one per item."""
    if not loops.has_loop(step):
        return [step]
    return loops.expand(step, params)
