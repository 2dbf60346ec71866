"""govaluate's operators: what each symbol computes, and the types it accepts.

Follows govaluate's `evaluationStage.go` (operator functions, type checks and their
message formats) and `OperatorSymbol.go` (how a symbol is printed in messages and its
precedence), with Go's float arithmetic (division by zero is an infinity, not an error).
Values are floats, bools, strings, lists (from `,`) and patterns. Written from those
facts, not copied; `govaluate_stages` plans and evaluates with them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from reference_impl.controller.formats import gojson
from reference_impl.controller.formats import govaluate_tokens as tk

Check = Callable[[Any], bool] | None

LOGICAL = "Value '%s' cannot be used with the logical operator '%s', it is not a bool"
MODIFIER = "Value '%s' cannot be used with the modifier '%s', it is not a number"
COMPARATOR = "Value '%s' cannot be used with the comparator '%s', it is not a number"
TERNARY = "Value '%s' cannot be used with the ternary operator '%s', it is not a bool"
PREFIX = "Value '%s' cannot be used with the prefix '%s'"

SYMBOL_TEXT = {
    "NOOP": "NOOP",
    "VALUE": "VALUE",
    "EQ": "=",
    "NEQ": "!=",
    "GT": ">",
    "LT": "<",
    "GTE": ">=",
    "LTE": "<=",
    "REQ": "=~",
    "NREQ": "!~",
    "AND": "&&",
    "OR": "||",
    "IN": "in",
    "BITWISE_AND": "&",
    "BITWISE_OR": "|",
    "BITWISE_XOR": "^",
    "BITWISE_LSHIFT": "<<",
    "BITWISE_RSHIFT": ">>",
    "PLUS": "+",
    "MINUS": "-",
    "MULTIPLY": "*",
    "DIVIDE": "/",
    "MODULUS": "%",
    "EXPONENT": "**",
    "NEGATE": "-",
    "INVERT": "!",
    "BITWISE_NOT": "~",
    "TERNARY_TRUE": "?",
    "TERNARY_FALSE": ":",
    "COALESCE": "??",
}
PRECEDENCE = {
    "NOOP": 0,
    "VALUE": 1,
    "LITERAL": 1,
    "FUNCTIONAL": 2,
    "ACCESS": 2,
    "NEGATE": 3,
    "INVERT": 3,
    "BITWISE_NOT": 3,
    "EXPONENT": 4,
    "PLUS": 5,
    "MINUS": 5,
    "BITWISE_AND": 6,
    "BITWISE_OR": 6,
    "BITWISE_XOR": 6,
    "BITWISE_LSHIFT": 7,
    "BITWISE_RSHIFT": 7,
    "MULTIPLY": 8,
    "DIVIDE": 8,
    "MODULUS": 8,
    **dict.fromkeys(("EQ", "NEQ", "GT", "LT", "GTE", "LTE", "REQ", "NREQ", "IN"), 9),
    "TERNARY_TRUE": 10,
    "TERNARY_FALSE": 10,
    "COALESCE": 10,
    "AND": 11,
    "OR": 12,
    "SEPARATE": 13,
}


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_float(value: Any) -> bool:
    return isinstance(value, float)


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


def _is_regex_or_string(value: Any) -> bool:
    return isinstance(value, str | tk.Pattern)


def _addition_check(left: Any, right: Any) -> bool:
    return (
        (_is_float(left) and _is_float(right)) or _is_string(left) or _is_string(right)
    )


def _comparator_check(left: Any, right: Any) -> bool:
    return (_is_float(left) and _is_float(right)) or (
        _is_string(left) and _is_string(right)
    )


def _int64(value: float) -> int:
    if math.isnan(value) or math.isinf(value):
        return -(2**63)
    return ((int(value) + 2**63) % 2**64) - 2**63


def _uint64(value: float) -> int:
    return 0 if math.isnan(value) or math.isinf(value) else int(value) % 2**64


def _divide(left: float, right: float) -> float:
    if right == 0:
        if left == 0 or math.isnan(left):
            return math.nan
        return math.copysign(math.inf, left) * math.copysign(1.0, right)
    return left / right


def _power(left: float, right: float) -> float:
    try:
        return math.pow(left, right)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _modulus(left: float, right: float) -> float:
    if right == 0 or math.isinf(left) or math.isnan(left) or math.isnan(right):
        return math.nan
    return math.fmod(left, right)


def _deep_equal(left: Any, right: Any) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(
            _deep_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, tk.Pattern):
        return left is right
    return bool(left == right)


def _regex(left: Any, right: Any) -> bool:
    pattern = right
    if isinstance(right, str):
        try:
            pattern = tk.compile_pattern(right)
        except tk.ExpressionError as err:
            raise tk.ExpressionError(
                f"Unable to compile regexp pattern '{right}': {str(err).removeprefix('error parsing regexp: ')}"
            ) from None
    return pattern.compiled.search(left) is not None


def _in(left: Any, right: Any) -> bool:
    return any(
        type(left) is type(v) and not isinstance(v, list) and left == v for v in right
    )


def _separate(left: Any, right: Any) -> list[Any]:
    return [*left, right] if isinstance(left, list) else [left, right]


def _ternary_if(left: Any, right: Any) -> Any:
    return right if left else None


def _ternary_else(left: Any, right: Any) -> Any:
    return left if left is not None else right


OPERATORS: dict[str, tuple[Callable[[Any, Any], Any], Check, Check, Any]] = {
    "EQ": (lambda a, b: _deep_equal(a, b), None, None, None),
    "NEQ": (lambda a, b: not _deep_equal(a, b), None, None, None),
    "GT": (lambda a, b: a > b, None, None, _comparator_check),
    "LT": (lambda a, b: a < b, None, None, _comparator_check),
    "GTE": (lambda a, b: a >= b, None, None, _comparator_check),
    "LTE": (lambda a, b: a <= b, None, None, _comparator_check),
    "REQ": (_regex, _is_string, _is_regex_or_string, None),
    "NREQ": (lambda a, b: not _regex(a, b), _is_string, _is_regex_or_string, None),
    "AND": (lambda a, b: a and b, _is_bool, _is_bool, None),
    "OR": (lambda a, b: a or b, _is_bool, _is_bool, None),
    "IN": (_in, None, _is_array, None),
    "BITWISE_OR": (
        lambda a, b: float(_int64(a) | _int64(b)),
        _is_float,
        _is_float,
        None,
    ),
    "BITWISE_AND": (
        lambda a, b: float(_int64(a) & _int64(b)),
        _is_float,
        _is_float,
        None,
    ),
    "BITWISE_XOR": (
        lambda a, b: float(_int64(a) ^ _int64(b)),
        _is_float,
        _is_float,
        None,
    ),
    "BITWISE_LSHIFT": (
        lambda a, b: float((_uint64(a) << min(_uint64(b), 64)) % 2**64),
        _is_float,
        _is_float,
        None,
    ),
    "BITWISE_RSHIFT": (
        lambda a, b: float(_uint64(a) >> min(_uint64(b), 64)),
        _is_float,
        _is_float,
        None,
    ),
    "PLUS": (
        lambda a, b: (
            gojson.format_v(a) + gojson.format_v(b)
            if _is_string(a) or _is_string(b)
            else a + b
        ),
        None,
        None,
        _addition_check,
    ),
    "MINUS": (lambda a, b: a - b, _is_float, _is_float, None),
    "MULTIPLY": (lambda a, b: a * b, _is_float, _is_float, None),
    "DIVIDE": (_divide, _is_float, _is_float, None),
    "MODULUS": (_modulus, _is_float, _is_float, None),
    "EXPONENT": (_power, _is_float, _is_float, None),
    "NEGATE": (lambda a, b: -b, None, _is_float, None),
    "INVERT": (lambda a, b: not b, None, _is_bool, None),
    "BITWISE_NOT": (lambda a, b: float(~_int64(b)), None, _is_float, None),
    "TERNARY_TRUE": (_ternary_if, _is_bool, None, None),
    "TERNARY_FALSE": (_ternary_else, None, None, None),
    "COALESCE": (_ternary_else, None, None, None),
    "SEPARATE": (_separate, None, None, None),
}
SHORT_CIRCUITS = {"AND", "OR", "TERNARY_TRUE", "TERNARY_FALSE", "COALESCE"}
