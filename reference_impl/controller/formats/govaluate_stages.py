"""Planning and evaluating govaluate expressions, for Argo's `when` conditions.

Follows govaluate's `stagePlanner.go` (precedence levels, each parsed right-recursively and
then re-ordered so equal precedences run left to right, parentheses as a no-op stage,
literal folding) and `EvaluableExpression.go` (evaluation with short-circuits and type
checks). Written from those facts, not copied; tokens come from `govaluate_tokens`, what
each operator computes from `govaluate_operators`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from reference_impl.controller.formats import govaluate_operators as ops
from reference_impl.controller.formats import govaluate_tokens as tk

_HOLDER = object()
"""Marks a right side that a short-circuit skipped (govaluate's `shortCircuitHolder`)."""


@dataclasses.dataclass
class Stage:
    """One node of an evaluation plan."""

    symbol: str
    operator: Callable[[Any, Any], Any]
    left: Stage | None = None
    right: Stage | None = None
    left_check: ops.Check = None
    right_check: ops.Check = None
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


def _operator_stage(
    symbol: str, left: Stage | None, right: Stage | None, error_format: str
) -> Stage:
    operator, left_check, right_check, combined = ops.OPERATORS[symbol]
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


_plan_prefix = _level(tk.PREFIX_SYMBOLS, (tk.PREFIX,), ops.PREFIX, None, _plan_function)
_exponential = _level({"**": "EXPONENT"}, (tk.MODIFIER,), ops.MODIFIER, _plan_function)
_multiplicative = _level(
    {"*": "MULTIPLY", "/": "DIVIDE", "%": "MODULUS"},
    (tk.MODIFIER,),
    ops.MODIFIER,
    _exponential,
)
_additive = _level(
    {"+": "PLUS", "-": "MINUS"}, (tk.MODIFIER,), ops.MODIFIER, _multiplicative
)
_shift = _level(
    {">>": "BITWISE_RSHIFT", "<<": "BITWISE_LSHIFT"},
    (tk.MODIFIER,),
    ops.MODIFIER,
    _additive,
)
_bitwise = _level(
    {"^": "BITWISE_XOR", "&": "BITWISE_AND", "|": "BITWISE_OR"},
    (tk.MODIFIER,),
    ops.MODIFIER,
    _shift,
)
_comparator = _level(tk.COMPARATOR_SYMBOLS, (tk.COMPARATOR,), ops.COMPARATOR, _bitwise)
_logical_and = _level({"&&": "AND"}, (tk.LOGICALOP,), ops.LOGICAL, _comparator)
_logical_or = _level({"||": "OR"}, (tk.LOGICALOP,), ops.LOGICAL, _logical_and)
_ternary = _level(tk.TERNARY_SYMBOLS, (tk.TERNARY,), ops.TERNARY, _logical_or)
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
    return ops.PRECEDENCE.get(stage.symbol, 1)


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
    if stage.symbol in ops.SHORT_CIRCUITS:
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
    symbol = ops.SYMBOL_TEXT.get(stage.symbol, "")
    if stage.combined_check is None:
        for check, value in ((stage.left_check, left), (stage.right_check, right)):
            if check is not None and not check(value):
                raise tk.ExpressionError(
                    stage.error_format % (tk.describe(value), symbol)
                )
    elif not stage.combined_check(left, right):
        raise tk.ExpressionError(stage.error_format % (tk.describe(left), symbol))
    return stage.operator(left, right)
