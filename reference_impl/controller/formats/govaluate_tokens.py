"""The tokens of govaluate, the expression language Argo evaluates `when` conditions with.

Argo v4.1.2 calls `github.com/Knetic/govaluate` (v3.0.1-0.20250325060307-7625b7f8c03d)
from `shouldExecute` in `workflow/controller/steps.go`, and a condition's fate (run, skip,
or fail with a parse error) depends on how govaluate splits it into tokens: bare words are
variables, `-` after a value is a minus, `'2024-01-02'` is a time. This module follows
govaluate's `parsing.go` (lexer), `lexerState.go` (which token may follow which) and
`parsing.go` `optimizeTokens` (regular expressions compiled early), with its messages.
Written from those facts, not copied.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any

from reference_impl.controller.formats import gojson
from reference_impl.controller.formats import govaluate_times

UNKNOWN = "UNKNOWN"
PREFIX = "PREFIX"
NUMERIC = "NUMERIC"
BOOLEAN = "BOOLEAN"
STRING = "STRING"
PATTERN = "PATTERN"
TIME = "TIME"
VARIABLE = "VARIABLE"
FUNCTION = "FUNCTION"
SEPARATOR = "SEPARATOR"
ACCESSOR = "ACCESSOR"
COMPARATOR = "COMPARATOR"
LOGICALOP = "LOGICALOP"
MODIFIER = "MODIFIER"
CLAUSE = "CLAUSE"
CLAUSE_CLOSE = "CLAUSE_CLOSE"
TERNARY = "TERNARY"

PREFIX_SYMBOLS = {"-": "NEGATE", "!": "INVERT", "~": "BITWISE_NOT"}
MODIFIER_SYMBOLS = {
    "+": "PLUS",
    "-": "MINUS",
    "*": "MULTIPLY",
    "/": "DIVIDE",
    "%": "MODULUS",
    "**": "EXPONENT",
    "&": "BITWISE_AND",
    "|": "BITWISE_OR",
    "^": "BITWISE_XOR",
    ">>": "BITWISE_RSHIFT",
    "<<": "BITWISE_LSHIFT",
}
LOGICAL_SYMBOLS = {"&&": "AND", "||": "OR"}
COMPARATOR_SYMBOLS = {
    "==": "EQ",
    "!=": "NEQ",
    ">": "GT",
    ">=": "GTE",
    "<": "LT",
    "<=": "LTE",
    "=~": "REQ",
    "!~": "NREQ",
    "in": "IN",
}
TERNARY_SYMBOLS = {"?": "TERNARY_TRUE", ":": "TERNARY_FALSE", "??": "COALESCE"}

# `lexerState.go` `validLexerStates`: whether an expression may end after a token of
# this kind, and which kinds may follow it.
_TABLE = """
UNKNOWN      0 PREFIX NUMERIC BOOLEAN VARIABLE PATTERN FUNCTION ACCESSOR STRING TIME CLAUSE
CLAUSE       0 PREFIX NUMERIC BOOLEAN VARIABLE PATTERN FUNCTION ACCESSOR STRING TIME CLAUSE
               CLAUSE_CLOSE
CLAUSE_CLOSE 1 COMPARATOR MODIFIER NUMERIC BOOLEAN VARIABLE STRING PATTERN TIME CLAUSE
               CLAUSE_CLOSE LOGICALOP TERNARY SEPARATOR
NUMERIC      1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE TERNARY SEPARATOR
BOOLEAN      1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE TERNARY SEPARATOR
STRING       1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE TERNARY SEPARATOR
TIME         1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE SEPARATOR
PATTERN      1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE SEPARATOR
VARIABLE     1 MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE TERNARY SEPARATOR
MODIFIER     0 PREFIX NUMERIC VARIABLE FUNCTION ACCESSOR STRING BOOLEAN CLAUSE CLAUSE_CLOSE
COMPARATOR   0 PREFIX NUMERIC BOOLEAN VARIABLE FUNCTION ACCESSOR STRING TIME CLAUSE
               CLAUSE_CLOSE PATTERN
LOGICALOP    0 PREFIX NUMERIC BOOLEAN VARIABLE FUNCTION ACCESSOR STRING TIME CLAUSE
               CLAUSE_CLOSE
PREFIX       0 NUMERIC BOOLEAN VARIABLE FUNCTION ACCESSOR CLAUSE CLAUSE_CLOSE
TERNARY      0 PREFIX NUMERIC BOOLEAN STRING TIME VARIABLE FUNCTION ACCESSOR CLAUSE SEPARATOR
FUNCTION     0 CLAUSE
ACCESSOR     1 CLAUSE MODIFIER COMPARATOR LOGICALOP CLAUSE_CLOSE TERNARY SEPARATOR
SEPARATOR    0 PREFIX NUMERIC BOOLEAN STRING TIME VARIABLE FUNCTION ACCESSOR CLAUSE
"""


@dataclasses.dataclass(frozen=True)
class _State:
    eof: bool
    """The expression may end after this token."""
    next_kinds: tuple[str, ...]


def _states(table: str) -> dict[str, _State]:
    rows: dict[str, list[str]] = {}
    last = ""
    for line in table.strip().splitlines():
        words = line.split()
        if line.startswith(" "):
            rows[last] += words
        else:
            last = words[0]
            rows[last] = words[1:]
    return {k: _State(v[0] == "1", tuple(v[1:])) for k, v in rows.items()}


STATES = _states(_TABLE)


class ExpressionError(ValueError):
    """govaluate refused the expression; the message is govaluate's."""


@dataclasses.dataclass
class Pattern:
    """A compiled regular expression; `%v` shows its source, as Go's `*regexp.Regexp` does."""

    source: str
    compiled: re.Pattern[str]

    def __str__(self) -> str:
        return self.source


@dataclasses.dataclass
class Token:
    """One token: its kind and its value (float, bool, str, list[str], Pattern or a rune)."""

    kind: str
    value: Any


def describe(value: Any) -> str:
    """Return a token value as govaluate's messages print it (`%v`)."""
    if isinstance(value, list):
        return "[" + " ".join(value) + "]"
    return gojson.format_v(value)


class _Stream:
    def __init__(self, text: str) -> None:
        self.text, self.position = text, 0

    def can_read(self) -> bool:
        return self.position < len(self.text)

    def read(self) -> str:
        self.position += 1
        return self.text[self.position - 1]

    def rewind(self, amount: int) -> None:
        self.position -= amount


def _is_digit(char: str) -> bool:
    return unicodedata.category(char) == "Nd"


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


def _is_numeric(char: str) -> bool:
    return _is_digit(char) or char == "."


def _is_hex(char: str) -> bool:
    return _is_digit(char) or char.lower() in "abcdef"


def _is_variable_name(char: str) -> bool:
    return _is_letter(char) or _is_digit(char) or char in "_."


def _is_not_quote(char: str) -> bool:
    return char not in "'\""


def _is_not_alphanumeric(char: str) -> bool:
    return not (
        _is_digit(char) or _is_letter(char) or char in "()[]" or not _is_not_quote(char)
    )


def _read_until_false(
    stream: _Stream, *, include_space: bool, break_space: bool, condition: Any
) -> tuple[str, bool]:
    """Read while `condition` holds (backslash escapes anything); True if it stopped on its own."""
    buffer: list[str] = []
    while stream.can_read():
        char = stream.read()
        if char == "\\":
            if not stream.can_read():
                break  # govaluate indexes past the end here; treat as unterminated
            buffer.append(stream.read())
            continue
        if char.isspace():
            if break_space and buffer:
                return "".join(buffer), True
            if not include_space:
                continue
        if condition(char):
            buffer.append(char)
        else:
            stream.rewind(1)
            return "".join(buffer), True
    return "".join(buffer), False


def _read_token_until_false(stream: _Stream, condition: Any) -> str:
    stream.rewind(1)
    text, _ = _read_until_false(
        stream, include_space=False, break_space=True, condition=condition
    )
    return text


def tokenize(expression: str) -> list[Token]:
    """Split an expression into tokens (`parseTokens`); raises ExpressionError."""
    stream = _Stream(expression)
    state = STATES[UNKNOWN]
    tokens: list[Token] = []
    while stream.can_read():
        token = _read_token(stream, state)
        if token is None:
            break
        state = STATES[token.kind]
        tokens.append(token)
    check_balance(tokens)
    return tokens


def _read_token(stream: _Stream, state: _State) -> Token | None:
    while stream.can_read():
        char = stream.read()
        if char.isspace():
            continue
        if _is_numeric(char):
            return _read_number(stream, char)
        if char == ",":
            return Token(SEPARATOR, ",")
        if char == "[":
            text, completed = _read_until_false(
                stream,
                include_space=True,
                break_space=False,
                condition=lambda c: c != "]",
            )
            if not completed:
                raise ExpressionError("Unclosed parameter bracket")
            stream.rewind(-1)
            return Token(VARIABLE, text)
        if _is_letter(char):
            return _read_word(_read_token_until_false(stream, _is_variable_name))
        if not _is_not_quote(char):
            text, completed = _read_until_false(
                stream, include_space=True, break_space=False, condition=_is_not_quote
            )
            if not completed:
                raise ExpressionError("Unclosed string literal")
            stream.rewind(-1)
            moment = govaluate_times.parse_time(text)
            return Token(STRING, text) if moment is None else Token(TIME, moment)
        if char == "(":
            return Token(CLAUSE, ord("("))
        if char == ")":
            return Token(CLAUSE_CLOSE, ord(")"))
        return _read_symbol(
            _read_token_until_false(stream, _is_not_alphanumeric), state
        )
    return None


def _read_number(stream: _Stream, char: str) -> Token:
    if stream.can_read() and char == "0":
        char = stream.read()
        if stream.can_read() and char == "x":
            text, _ = _read_until_false(
                stream, include_space=False, break_space=True, condition=_is_hex
            )
            try:
                return Token(NUMERIC, float(int(text, 16)))
            except ValueError:
                raise ExpressionError(
                    f"Unable to parse hex value '{text}' to uint64\n"
                ) from None
        stream.rewind(1)
    text = _read_token_until_false(stream, _is_numeric)
    if not re.fullmatch(r"[0-9]*\.?[0-9]*", text) or text in ("", "."):
        raise ExpressionError(f"Unable to parse numeric value '{text}' to float64\n")
    return Token(NUMERIC, float(text))


def _read_word(text: str) -> Token:
    token = Token(VARIABLE, text)
    if text in ("true", "false"):
        token = Token(BOOLEAN, text == "true")
    if text in ("in", "IN"):
        token = Token(COMPARATOR, "in")
    if text.find(".") > 0:
        if text.endswith("."):
            raise ExpressionError(f"Hanging accessor on token '{text}'")
        parts = text.split(".")
        for part in parts[1:]:
            first = part[:1]
            upper = first.upper()
            if first and len(upper) == 1 and upper != first:
                raise ExpressionError(
                    f"Unable to access unexported field '{part}' in token '{text}'"
                )
        token = Token(ACCESSOR, parts)
    return token


def _read_symbol(text: str, state: _State) -> Token:
    if PREFIX in state.next_kinds and text in PREFIX_SYMBOLS:
        return Token(PREFIX, text)
    for kind, symbols in (
        (MODIFIER, MODIFIER_SYMBOLS),
        (LOGICALOP, LOGICAL_SYMBOLS),
        (COMPARATOR, COMPARATOR_SYMBOLS),
        (TERNARY, TERNARY_SYMBOLS),
    ):
        if text in symbols:
            return Token(kind, text)
    raise ExpressionError(f"Invalid token: '{text}'")


def check_balance(tokens: list[Token]) -> None:
    """Raise `Unbalanced parenthesis` unless opening and closing parentheses pair up."""
    depth = sum(
        1 if t.kind == CLAUSE else -1 if t.kind == CLAUSE_CLOSE else 0 for t in tokens
    )
    if depth != 0:
        raise ExpressionError("Unbalanced parenthesis")


def check_syntax(tokens: list[Token]) -> None:
    """Raise govaluate's message when a token may not follow the one before (`checkExpressionSyntax`)."""
    state, last = STATES[UNKNOWN], Token(UNKNOWN, None)
    state_kind = UNKNOWN
    for token in tokens:
        if token.kind not in state.next_kinds:
            if last.kind == VARIABLE and token.kind == CLAUSE:
                raise ExpressionError(f"Undefined function {last.value}")
            raise ExpressionError(
                f"Cannot transition token types from {state_kind} [{describe(last.value)}]"
                f" to {token.kind} [{describe(token.value)}]"
            )
        state, state_kind, last = STATES[token.kind], token.kind, token
    if not state.eof:
        raise ExpressionError("Unexpected end of expression")


def optimize(tokens: list[Token]) -> list[Token]:
    """Compile the string after `=~`/`!~` into a pattern (`optimizeTokens`)."""
    result = list(tokens)
    for index, token in enumerate(result[:-1]):
        after = result[index + 1]
        if (
            token.kind == COMPARATOR
            and token.value in ("=~", "!~")
            and after.kind == STRING
        ):
            result[index + 1] = Token(PATTERN, compile_pattern(after.value))
    return result


def compile_pattern(source: str) -> Pattern:
    """Compile a Go (RE2) regular expression; Python's `re` agrees on the common syntax.

    Raises ExpressionError `error parsing regexp: ...` for one it cannot compile; the text
    after that prefix is Python's, not RE2's (see docs/known-deviations.md).
    """
    if re.search(r"\(\?[=!<]|\\[1-9]", source):
        raise ExpressionError(
            f"error parsing regexp: invalid or unsupported Perl syntax: `{source}`"
        )
    try:
        return Pattern(source, re.compile(source))
    except re.error as err:
        raise ExpressionError(f"error parsing regexp: {err}") from None
