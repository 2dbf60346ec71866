"""Argo's expression tags, `{{=<expr>}}`, evaluated as upstream evaluates them (#16).

Upstream (`util/template/expression_template.go`, `util/expr/env/env.go`, v4.1.2) turns the
flat variables in scope (`inputs.parameters.x`, `steps.a.outputs.result`, `workflow.name`,
`item`, ...) into nested maps (`util/expand`), adds its functions, and evaluates the tag
with expr-lang. A tag whose variables are not all in scope yet is left as it is for a
later pass (e.g. `inputs.*` before the inputs are known); when the caller is strict about
some prefixes (`steps`, `tasks` while resolving a step), a missing one of those fails with
`failed to evaluate expression: <name> is missing`. The value replaces the tag: a string as
it is, anything else as Go's `json.Marshal` writes it; nil fails.

Library decision: no third-party evaluator. The controller ships as a frozen, stdlib-only
executable (`reference_impl/images`), and the Python evaluators on PyPI (simpleeval,
asteval) evaluate *Python* syntax and semantics: translating expr-lang text to Python
(`&&`, `!`, `?:`, `??`, backquoted strings, Go's integer `%` and always-float `/`) would be
a second, fragile parser anyway. So `expr_syntax` parses the expr-lang subset with
expr-lang's precedences, `expr_eval` evaluates it with expr-lang's runtime rules and
`expr_functions` holds the functions; nothing is handed to Python's `eval`. Anything
outside the subset is refused with a message naming the expression.

Deliberate difference: where upstream, in a lenient pass, would leave a tag that fails to
evaluate in the text (and so hand the literal `{{=...}}` to the container), the reference
fails with the reason, and a leaf whose pod would still hold a tag fails (PodBuildError).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from reference_impl.controller.formats import expr_eval
from reference_impl.controller.formats import expr_syntax as syntax
from reference_impl.controller.formats import gojson
from reference_impl.controller.formats.expr_syntax import ExpressionError

__all__ = ["ExpressionError", "evaluate_tag", "evaluate_text", "identifiers"]

_ENV_FUNCTIONS = ("asInt", "asFloat", "jsonpath", "toJson", "sprig")


def identifiers(tree: syntax.Node) -> list[str]:
    """Return the variables an expression reads, as upstream's `getIdentifiers` lists them.

    Names and member chains with constant keys (`inputs.parameters.x`,
    `inputs.parameters['my-p']`) count; function names do not, and neither do member chains
    guarded by `??` (left side) or under a `?.`, which may be absent on purpose.
    """
    guarded: set[int] = set()
    _guard(tree, guarded, inside=False)
    found: list[str] = []
    _collect(tree, guarded, found)
    return found


def _guard(node: syntax.Node, guarded: set[int], *, inside: bool) -> None:
    if inside and isinstance(node, syntax.Member):
        guarded.add(id(node))
    if (
        isinstance(node, syntax.Member)
        and node.optional
        and isinstance(node.target, syntax.Member)
    ):
        guarded.add(id(node.target))
    if isinstance(node, syntax.Binary) and node.op == "??":
        _guard(node.left, guarded, inside=True)
        _guard(node.right, guarded, inside=inside)
        return
    for child in expr_eval.children(node):
        _guard(child, guarded, inside=inside)


def _collect(node: syntax.Node, guarded: set[int], found: list[str]) -> None:
    if isinstance(node, syntax.Call):
        if expr_eval.callee_name(node.callee) is None:
            _collect(node.callee, guarded, found)
        for arg in node.args:
            _collect(arg, guarded, found)
        return
    for child in expr_eval.children(node):
        _collect(child, guarded, found)
    path = _path(node)
    if path is not None and id(node) not in guarded and path not in found:
        found.append(path)


def _path(node: syntax.Node) -> str | None:
    if isinstance(node, syntax.Name):
        return node.name
    if (
        isinstance(node, syntax.Member)
        and not node.optional
        and isinstance(node.key, syntax.Literal)
        and isinstance(node.key.value, str)
    ):
        parent = _path(node.target)
        return None if parent is None else f"{parent}.{node.key.value}"
    return None


def has_variable(params: Mapping[str, Any], path: str) -> bool:
    """Whether a variable path exists in the flat variables, as a value or a map."""
    if path in params or path in _ENV_FUNCTIONS:
        return True
    return any(key.startswith(path + ".") for key in params)


def environment(params: Mapping[str, Any]) -> dict[str, Any]:
    """Nest flat variables into maps (`util/expand`); a key with children becomes a map."""
    keys = sorted(params)
    env: dict[str, Any] = {}
    for index, key in enumerate(keys):
        if index + 1 < len(keys) and keys[index + 1].startswith(key + "."):
            continue  # upstream drops the less specific key of a conflict
        parts = key.split(".")
        node = env
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = params[key]
    return env


def evaluate_text(expression: str, params: Mapping[str, Any]) -> Any:
    """Evaluate an expression with every variable in scope; return its value (not nil)."""
    tree = _parse(expression)
    return _value(expression, tree, params)


def _parse(expression: str) -> syntax.Node:
    try:
        tree = syntax.parse(expression)
        expr_eval.check_calls(tree)
    except ExpressionError as err:
        raise ExpressionError(
            f"failed to evaluate expression {expression!r}: {err}"
        ) from None
    return tree


def _value(expression: str, tree: syntax.Node, params: Mapping[str, Any]) -> Any:
    try:
        value = expr_eval.evaluate(tree, environment(params))
    except ExpressionError as err:
        raise ExpressionError(
            f"failed to evaluate expression {expression!r}: {err}"
        ) from None
    if value is None:
        raise ExpressionError(
            f"failed to evaluate expression {expression!r}: nil result"
        )
    return value


def evaluate_tag(
    expression: str, params: Mapping[str, Any], strict: tuple[str, ...] = ()
) -> str | None:
    """Return the text replacing `{{=expression}}`, or None to leave the tag for later.

    Raises ExpressionError when the expression is outside the supported subset, fails to
    evaluate, gives nil, or (with `strict` prefixes) reads a missing variable under them.
    """
    tree = _parse(expression)
    missing = [p for p in identifiers(tree) if not has_variable(params, p)]
    if strict:
        pattern = re.compile("^(" + "|".join(re.escape(p) for p in strict) + r")(\.|$)")
        for path in missing:
            if pattern.match(path):
                raise ExpressionError(
                    f"failed to evaluate expression: {path} is missing"
                )
    if missing:
        return None
    return format_value(_value(expression, tree, params))


def format_value(value: Any) -> str:
    """The text a value puts in place of its tag: a string itself, else Go's JSON."""
    if isinstance(value, str):
        return value
    if not _finite(value):
        raise ExpressionError(
            "failed to marshal evaluated expression: json: unsupported value: "
            + gojson.format_v(value)
        )
    return gojson.dumps(value, sort_all=True)


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True
