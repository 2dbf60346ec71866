"""Argo's `{{...}}` variable substitution, for the variables the reference controller knows.

Supported: `inputs.parameters.<p>`, `inputs.artifacts.<a>.path`, `workflow.name|namespace|uid`,
`workflow.parameters.<p>`, `pod.name`, `node.name`, `retries`,
`steps|tasks.<n>.outputs.parameters.<p>`, `steps|tasks.<n>.outputs.result`,
`steps|tasks.<n>.outputs.artifacts.<a>` (in `from:` only) and `steps|tasks.<n>.status`.
Expression tags (`{{=...}}`, #16) are evaluated by `expressions` with the same variables:
one whose variables are not all in scope yet is left for a later pass, one that cannot be
evaluated raises WorkflowError naming it. A tag runs from `{{=` to the first `}}`, as
upstream's fasttemplate cuts it. A leaf template that still holds a variable after
substitution fails with Argo's `failed to resolve {{...}}`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.formats import expressions

_TAG = re.compile(r"{{\s*([^{}]+?)\s*}}")
_ANY_TAG = re.compile(
    r"{{=(?P<expression>.*?)}}|{{\s*(?P<name>[^{}]+?)\s*}}", re.DOTALL
)
_EXPRESSION = re.compile(r"{{=(.*?)}}", re.DOTALL)


def substitute_text(
    text: str, params: Mapping[str, str], strict: tuple[str, ...] = ()
) -> str:
    """Replace every `{{name}}` in `params` and every expression tag whose variables are.

    Other tags are left as they are.
    `strict` prefixes (`steps`, `tasks`) make an expression reading a missing variable
    under them fail. Raises WorkflowError for an expression that cannot be evaluated.
    """

    def replace(match: re.Match[str]) -> str:
        expression = match.group("expression")
        if expression is None:
            return params.get(match.group("name"), match.group(0))
        try:
            value = expressions.evaluate_tag(expression, params, strict)
        except expressions.ExpressionError as err:
            raise errors.WorkflowError(str(err)) from None
        return match.group(0) if value is None else value

    if "{{" not in text:
        return text
    return _ANY_TAG.sub(replace, text)


def substitute_tree(
    value: Any, params: Mapping[str, str], strict: tuple[str, ...] = ()
) -> Any:
    """Return a copy of a JSON-like tree with `substitute_text` applied to every string."""
    if isinstance(value, str):
        return substitute_text(value, params, strict)
    if isinstance(value, dict):
        return {k: substitute_tree(v, params, strict) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute_tree(v, params, strict) for v in value]
    return value


def unresolved_expressions(value: Any) -> list[str]:
    """Return the expression tags (`{{=...}}`) still present anywhere in a tree."""
    if isinstance(value, str):
        return [m.group(0) for m in _EXPRESSION.finditer(value)]
    if isinstance(value, dict):
        return [tag for item in value.values() for tag in unresolved_expressions(item)]
    if isinstance(value, list):
        return [tag for item in value for tag in unresolved_expressions(item)]
    return []


def unresolved(value: Any) -> list[str]:
    """Return the `{{...}}` variables (not expressions) still present anywhere in a tree."""
    found: list[str] = []
    if isinstance(value, str):
        found += [
            m.group(0) for m in _TAG.finditer(value) if not m.group(1).startswith("=")
        ]
    elif isinstance(value, dict):
        for item in value.values():
            found += unresolved(item)
    elif isinstance(value, list):
        for item in value:
            found += unresolved(item)
    return found
