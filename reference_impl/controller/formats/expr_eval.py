"""Evaluating an expr-lang syntax tree against Argo's variables, as expr-lang does (#16).

Values are Go's as Python holds them: nil, bool, int (64-bit, refused on overflow instead
of wrapping), float64, string, arrays and maps. The operators follow expr-lang's runtime
(`vm/runtime`): `+ - *` keep ints when both sides are ints and widen to float otherwise;
`/` and `**` always give a float; `%` is Go's (ints only, sign of the dividend); `+` joins
two strings; `==` compares numbers by value and anything else by type and value (values of
different types are unequal); `< <= > >=` compare two numbers or two strings; `&&`, `||`,
`!` and `?:` need booleans; `??` replaces nil; `in` looks in an array or a map's keys;
member access on a map gives nil for a missing key (`?.` also on nil). A type mismatch
raises ExpressionError with expr-lang's wording, never a guessed value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reference_impl.controller.formats import expr_functions as functions
from reference_impl.controller.formats import expr_syntax as syntax
from reference_impl.controller.formats import gojson
from reference_impl.controller.formats.expr_syntax import ExpressionError


def callee_name(node: syntax.Node) -> str | None:
    """Return `f` or `sprig.f` for a call's callee, None for anything else."""
    if isinstance(node, syntax.Name):
        return node.name
    if (
        isinstance(node, syntax.Member)
        and isinstance(node.target, syntax.Name)
        and node.target.name == "sprig"
        and isinstance(node.key, syntax.Literal)
        and isinstance(node.key.value, str)
    ):
        return f"sprig.{node.key.value}"
    return None


def function(name: str | None) -> functions.Function:
    """Return a supported function by name; raise ExpressionError for any other."""
    if name is not None and name.startswith("sprig."):
        found = functions.SPRIG.get(name.removeprefix("sprig."))
    else:
        found = functions.BUILTINS.get(name or "")
    if found is None:
        what = f"the function {name}" if name else "calling this kind of value"
        raise ExpressionError(f"{what} is not supported by the reference controller")
    return found


def check_calls(node: syntax.Node) -> None:
    """Raise ExpressionError for a call of a function outside the supported subset."""
    if isinstance(node, syntax.Call):
        function(callee_name(node.callee))
        for arg in node.args:
            check_calls(arg)
        return
    for child in children(node):
        check_calls(child)


def children(node: syntax.Node) -> list[syntax.Node]:
    """Return a node's direct subtrees."""
    if isinstance(node, syntax.Member):
        return [node.target, node.key]
    if isinstance(node, syntax.Call):
        return [node.callee, *node.args]
    if isinstance(node, syntax.Unary):
        return [node.operand]
    if isinstance(node, syntax.Binary):
        return [node.left, node.right]
    if isinstance(node, syntax.Conditional):
        return [node.test, node.then, node.otherwise]
    if isinstance(node, syntax.ArrayLit):
        return list(node.items)
    if isinstance(node, syntax.MapLit):
        return [part for pair in node.pairs for part in pair]
    return []


def evaluate(node: syntax.Node, env: Mapping[str, Any]) -> Any:
    """Return the value of a tree; raise ExpressionError as expr-lang's runtime would fail."""
    if isinstance(node, syntax.Literal):
        return node.value
    if isinstance(node, syntax.Name):
        return env.get(node.name)
    if isinstance(node, syntax.Member):
        return _member(node, env)
    if isinstance(node, syntax.Call):
        return _call(node, env)
    if isinstance(node, syntax.Unary):
        return _unary(node.op, evaluate(node.operand, env))
    if isinstance(node, syntax.Conditional):
        test = evaluate(node.test, env)
        if not isinstance(test, bool):
            raise ExpressionError(
                f"non-bool expression (type {functions.type_name(test)}) used as condition"
            )
        return evaluate(node.then if test else node.otherwise, env)
    if isinstance(node, syntax.Binary):
        return _binary(node, env)
    if isinstance(node, syntax.ArrayLit):
        return [evaluate(item, env) for item in node.items]
    result = {}
    for key_node, value_node in node.pairs:
        key = evaluate(key_node, env)
        if not isinstance(key, str):
            raise ExpressionError(
                f"map keys must be strings, got {functions.type_name(key)}"
            )
        result[key] = evaluate(value_node, env)
    return result


def _member(node: syntax.Member, env: Mapping[str, Any]) -> Any:
    target = evaluate(node.target, env)
    key = evaluate(node.key, env)
    if target is None:
        if node.optional:
            return None
        raise ExpressionError(f"cannot fetch {gojson.format_v(key)} from <nil>")
    if isinstance(target, dict):
        if not isinstance(key, str):
            raise ExpressionError(f"cannot use {functions.type_name(key)} as a map key")
        return target.get(key)
    if isinstance(target, list):
        if not isinstance(key, int) or isinstance(key, bool):
            raise ExpressionError(
                f"array elements can only be selected using an integer (got {functions.type_name(key)})"
            )
        if not -len(target) <= key < len(target):
            raise ExpressionError(
                f"index out of range: {key} (array length is {len(target)})"
            )
        return target[key]
    raise ExpressionError(
        f"type {functions.type_name(target)} has no field {gojson.format_v(key)} "
        "(member access on it is not supported by the reference controller)"
    )


def _call(node: syntax.Call, env: Mapping[str, Any]) -> Any:
    name = callee_name(node.callee)
    found = function(name)
    args = [evaluate(arg, env) for arg in node.args]
    try:
        return found(*args)
    except TypeError:
        raise ExpressionError(
            f"{name}: wrong number or kind of arguments ({len(args)} given)"
        ) from None


def _unary(op: str, value: Any) -> Any:
    if op in ("!", "not"):
        if not isinstance(value, bool):
            raise ExpressionError(
                f"invalid operation: {op} ({functions.type_name(value)})"
            )
        return not value
    if not _is_number(value):
        raise ExpressionError(f"invalid operation: {op} ({functions.type_name(value)})")
    if op == "-":
        return functions.check_int(-value) if isinstance(value, int) else -value
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _binary(node: syntax.Binary, env: Mapping[str, Any]) -> Any:
    op = node.op
    left = evaluate(node.left, env)
    if op in ("&&", "and", "||", "or"):
        if not isinstance(left, bool):
            raise _mismatch(op, left, None)
        if (op in ("&&", "and")) != left:
            return left
        right = evaluate(node.right, env)
        if not isinstance(right, bool):
            raise _mismatch(op, left, right)
        return right
    if op == "??":
        return evaluate(node.right, env) if left is None else left
    right = evaluate(node.right, env)
    if op in ("==", "!="):
        return equal(left, right) == (op == "==")
    if op in ("<", "<=", ">", ">="):
        return _compare(op, left, right)
    if op in ("in", "not in"):
        return _contained(left, right) == (op == "in")
    if op in ("contains", "startsWith", "endsWith"):
        if not isinstance(left, str) or not isinstance(right, str):
            raise _mismatch(op, left, right)
        if op == "contains":
            return right in left
        return left.startswith(right) if op == "startsWith" else left.endswith(right)
    return _arithmetic(op, left, right)


def equal(left: Any, right: Any) -> bool:
    """expr-lang's `==`: numbers by value, anything else by type and value."""
    if _is_number(left) and _is_number(right):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(
            _deep_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(
            _deep_equal(left[k], right[k]) for k in left
        )
    return bool(left == right)


def _deep_equal(left: Any, right: Any) -> bool:
    """Go's reflect.DeepEqual, which expr-lang uses inside arrays and maps."""
    if type(left) is not type(right):
        return False
    return equal(left, right)


def _compare(op: str, left: Any, right: Any) -> bool:
    both_numbers = _is_number(left) and _is_number(right)
    both_strings = isinstance(left, str) and isinstance(right, str)
    if not (both_numbers or both_strings):
        raise _mismatch(op, left, right)
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def _contained(needle: Any, haystack: Any) -> bool:
    if isinstance(haystack, list):
        return any(equal(needle, item) for item in haystack)
    if isinstance(haystack, dict):
        if not isinstance(needle, str):
            raise _mismatch("in", needle, haystack)
        return needle in haystack
    raise _mismatch("in", needle, haystack)


def _arithmetic(op: str, left: Any, right: Any) -> Any:
    if op == "+" and isinstance(left, str) and isinstance(right, str):
        return left + right
    if not (_is_number(left) and _is_number(right)):
        raise _mismatch(op, left, right)
    both_ints = isinstance(left, int) and isinstance(right, int)
    if op == "%":
        if not both_ints:
            raise _mismatch(op, left, right)
        return functions.go_mod(left, right)
    if op in ("**", "^"):
        try:
            return float(math.pow(left, right))
        except (OverflowError, ValueError):
            raise ExpressionError(f"{op}: result is not a finite number") from None
    if op == "/":
        if right == 0:
            raise ExpressionError(
                "division by zero (the result would be infinite or NaN)"
            )
        return left / right
    result = {"+": left + right, "-": left - right, "*": left * right}[op]
    if both_ints:
        return functions.check_int(result)
    return float(result)


def _mismatch(op: str, left: Any, right: Any) -> ExpressionError:
    types = functions.type_name(left)
    if right is not None or op not in ("&&", "and", "||", "or"):
        types += f" and {functions.type_name(right)}"
    return ExpressionError(f"invalid operation: {op} (mismatched types {types})")
