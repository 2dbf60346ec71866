"""Planning and evaluating govaluate expressions, for Argo's `when` conditions.

Follows govaluate's `stagePlanner.go` (precedence levels, each parsed right-recursively and
then re-ordered so equal precedences run left to right, parentheses as a no-op stage,
literal folding) and `evaluationStage.go` (short-circuits, type checks and their messages,
Go's float arithmetic). Values are floats, bools, strings, lists (from `,`) and patterns,
as in govaluate. Written from those facts, not copied; the token side is in
`govaluate_tokens`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from reference_impl.controller.formats import gojson
from reference_impl.controller.formats import govaluate_tokens as tk

Check = Callable[[Any], bool] | None
_HOLDER = object()
"""Marks a right side that a short-circuit skipped (govaluate's `shortCircuitHolder`)."""

_LOGICAL = "Value '%s' cannot be used with the logical operator '%s', it is not a bool"
_MODIFIER = "Value '%s' cannot be used with the modifier '%s', it is not a number"
_COMPARATOR = "Value '%s' cannot be used with the comparator '%s', it is not a number"
_TERNARY = "Value '%s' cannot be used with the ternary operator '%s', it is not a bool"
_PREFIX = "Value '%s' cannot be used with the prefix '%s'"

_SYMBOL_TEXT = {
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
_PRECEDENCE = {
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


@dataclasses.dataclass
class Stage:
    """One node of an evaluation plan."""

    symbol: str
    operator: Callable[[Any, Any], Any]
    left: Stage | None = None
    right: Stage | None = None
    left_check: Check = None
    right_check: Check = None
    combined_check: Callable[[Any, Any], bool] | None = None
    error_format: str = ""

    def swap_with(self, other: Stage) -> None:
        """Exchange everything but the children (`swapWith`)."""
        for field in (
            "symbol",
            "operator",
            "left_check",
            "right_check",
            "combined_check",
            "error_format",
        ):
            mine, theirs = getattr(self, field), getattr(other, field)
            setattr(self, field, theirs)
            setattr(other, field, mine)


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


_OPERATORS: dict[str, tuple[Callable[[Any, Any], Any], Check, Check, Any]] = {
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
_SHORT_CIRCUITS = {"AND", "OR", "TERNARY_TRUE", "TERNARY_FALSE", "COALESCE"}


def _operator_stage(
    symbol: str, left: Stage | None, right: Stage | None, error_format: str
) -> Stage:
    operator, left_check, right_check, combined = _OPERATORS[symbol]
    return Stage(
        symbol, operator, left, right, left_check, right_check, combined, error_format
    )


def _literal(value: Any) -> Stage:
    return Stage("LITERAL", lambda a, b: value)


def _parameter(name: str) -> Stage:
    def lookup(left: Any, right: Any) -> Any:
        raise tk.ExpressionError(f"No parameter '{name}' found.")

    return Stage("VALUE", lookup)


class _Tokens:
    def __init__(self, tokens: list[tk.Token]) -> None:
        self.tokens, self.index = tokens, 0

    def has_next(self) -> bool:
        return self.index < len(self.tokens)

    def next(self) -> tk.Token:
        self.index += 1
        return self.tokens[self.index - 1]

    def rewind(self) -> None:
        self.index -= 1


Precedent = Callable[[_Tokens], Stage | None]


def _level(
    symbols: dict[str, str],
    kinds: tuple[str, ...],
    error_format: str,
    nxt: Precedent | None,
    right: Precedent | None = None,
) -> Precedent:
    """Return the parser of one precedence level (`makePrecedentFromPlanner`)."""

    def generated(stream: _Tokens) -> Stage | None:
        left = nxt(stream) if nxt is not None else None
        while stream.has_next():
            token = stream.next()
            if token.kind not in kinds or not isinstance(token.value, str):
                break
            symbol = symbols.get(token.value)
            if symbol is None:
                break
            right_stage = (right or generated)(stream)
            return _operator_stage(symbol, left, right_stage, error_format)
        stream.rewind()
        return left

    return generated


def _plan_value(stream: _Tokens) -> Stage | None:
    if not stream.has_next():
        return None
    token = stream.next()
    if token.kind == tk.CLAUSE:
        inner = _plan_tokens(stream)
        stream.next()
        return Stage("NOOP", lambda a, b: b, right=inner)
    if token.kind == tk.CLAUSE_CLOSE:
        stream.rewind()
        return None
    if token.kind == tk.VARIABLE:
        return _parameter(token.value)
    if token.kind in (tk.NUMERIC, tk.STRING, tk.PATTERN, tk.BOOLEAN, tk.TIME):
        return _literal(token.value)
    if token.kind == tk.PREFIX:
        stream.rewind()
        return _plan_prefix(stream)
    raise tk.ExpressionError(
        f"Unable to plan token kind: '{token.kind}', value: '{tk.describe(token.value)}'"
    )


def _plan_accessor(stream: _Tokens) -> Stage | None:
    if not stream.has_next():
        return None
    token = stream.next()
    if token.kind != tk.ACCESSOR:
        stream.rewind()
        return _plan_value(stream)
    right = None
    if stream.has_next():
        following = stream.next()
        stream.rewind()
        if following.kind == tk.CLAUSE:
            right = _plan_tokens(stream)
    return Stage("ACCESS", _parameter(token.value[0]).operator, right=right)


def _plan_function(stream: _Tokens) -> Stage | None:
    # Argo defines no functions, so the next token is never a FUNCTION (`planFunction`).
    return _plan_accessor(stream)


_plan_prefix = _level(tk.PREFIX_SYMBOLS, (tk.PREFIX,), _PREFIX, None, _plan_function)
_exponential = _level({"**": "EXPONENT"}, (tk.MODIFIER,), _MODIFIER, _plan_function)
_multiplicative = _level(
    {"*": "MULTIPLY", "/": "DIVIDE", "%": "MODULUS"},
    (tk.MODIFIER,),
    _MODIFIER,
    _exponential,
)
_additive = _level(
    {"+": "PLUS", "-": "MINUS"}, (tk.MODIFIER,), _MODIFIER, _multiplicative
)
_shift = _level(
    {">>": "BITWISE_RSHIFT", "<<": "BITWISE_LSHIFT"},
    (tk.MODIFIER,),
    _MODIFIER,
    _additive,
)
_bitwise = _level(
    {"^": "BITWISE_XOR", "&": "BITWISE_AND", "|": "BITWISE_OR"},
    (tk.MODIFIER,),
    _MODIFIER,
    _shift,
)
_comparator = _level(tk.COMPARATOR_SYMBOLS, (tk.COMPARATOR,), _COMPARATOR, _bitwise)
_logical_and = _level({"&&": "AND"}, (tk.LOGICALOP,), _LOGICAL, _comparator)
_logical_or = _level({"||": "OR"}, (tk.LOGICALOP,), _LOGICAL, _logical_and)
_ternary = _level(tk.TERNARY_SYMBOLS, (tk.TERNARY,), _TERNARY, _logical_or)
_separator = _level({",": "SEPARATE"}, (tk.SEPARATOR,), "", _ternary)


def _plan_tokens(stream: _Tokens) -> Stage | None:
    if not stream.has_next():
        return None
    return _separator(stream)


def plan(tokens: list[tk.Token]) -> Stage | None:
    """Return the evaluation plan of checked tokens (`planStages`), or None for no tokens."""
    stage = _plan_tokens(_Tokens(tokens))
    if stage is None:
        return None
    _reorder(stage)
    return _elide(stage)


def _precedence(stage: Stage) -> int:
    return _PRECEDENCE.get(stage.symbol, 1)


def _reorder(root: Stage) -> None:
    """Make runs of equal precedence down the right spine run left to right (`reorderStages`)."""
    same: list[Stage] = []
    precedence = _precedence(root)
    current: Stage | None = root
    while current is not None:
        stage, current = current, current.right
        if stage.left is not None:
            _reorder(stage.left)
        if _precedence(stage) == precedence:
            same.append(stage)
            continue
        if len(same) > 1:
            _mirror(same)
        same, precedence = [stage], _precedence(stage)
    if len(same) > 1:
        _mirror(same)


def _mirror(stages: list[Stage]) -> None:
    """Invert the order of execution of a right-leaning chain (`mirrorStageSubtree`)."""
    count = len(stages)
    for stage in stages:
        stage.left, stage.right = stage.right, stage.left
    root, end = stages[0], stages[-1]
    end.left, root.right = root.right, end.left
    for i in range((count - 2) // 2 + 1):
        front, inverse = stages[i + 1], stages[count - i - 1]
        front.right, inverse.right = inverse.right, front.right
    for i in range(count // 2):
        stages[i].swap_with(stages[count - i - 1])


def _elide(root: Stage) -> Stage:
    """Fold operators whose sides are both literals (`elideLiterals`)."""
    if root.left is not None:
        root.left = _elide(root.left)
    if root.right is not None:
        root.right = _elide(root.right)
    if (
        root.right is None
        or root.right.symbol != "LITERAL"
        or root.left is None
        or root.left.symbol != "LITERAL"
        or root.symbol in ("SEPARATE", "IN")
    ):
        return root
    try:
        left, right = root.left.operator(None, None), root.right.operator(None, None)
        for check, value in ((root.left_check, left), (root.right_check, right)):
            if check is not None and not check(value):
                return root
        if root.combined_check is not None and not root.combined_check(left, right):
            return root
        result = root.operator(left, right)
    except tk.ExpressionError:
        return root
    return _literal(result)


def evaluate(stage: Stage | None) -> Any:
    """Evaluate a plan with no parameters; raises ExpressionError with govaluate's message."""
    if stage is None:
        return None
    left: Any = None
    right: Any = None
    if stage.left is not None:
        left = evaluate(stage.left)
    if stage.symbol in _SHORT_CIRCUITS:
        if stage.symbol == "AND" and left is False:
            return False
        if stage.symbol == "OR" and left is True:
            return True
        if stage.symbol == "COALESCE" and left is not None:
            return left
        if (stage.symbol == "TERNARY_TRUE" and left is False) or (
            stage.symbol == "TERNARY_FALSE" and left is not None
        ):
            right = _HOLDER
    if right is not _HOLDER and stage.right is not None:
        right = evaluate(stage.right)
    symbol = _SYMBOL_TEXT.get(stage.symbol, "")
    if stage.combined_check is None:
        for check, value in ((stage.left_check, left), (stage.right_check, right)):
            if check is not None and not check(value):
                raise tk.ExpressionError(
                    stage.error_format % (tk.describe(value), symbol)
                )
    elif not stage.combined_check(left, right):
        raise tk.ExpressionError(stage.error_format % (tk.describe(left), symbol))
    return stage.operator(left, right)
