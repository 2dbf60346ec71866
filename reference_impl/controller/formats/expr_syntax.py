"""Tokens and syntax tree of the expr-lang subset behind Argo's `{{=...}}` tags (#16).

Argo v4.1.2 evaluates expression tags with `github.com/expr-lang/expr` v1.17.8
(`util/template/expression_template.go`). The reference controller parses a subset of that
language itself, with expr-lang's operator precedences (its `parser/operator` table):

    ?:  (ternary, lowest)  ||, or: 10   &&, and: 15
    ==, !=, <, <=, >, >=, in, not in, contains, startsWith, endsWith: 20
    +, -: 30   *, /, %: 60   unary !, not: 50   unary -, +: 90   **, ^: 100 (right)
    ??: 500    then postfix: member `.x`, `?.x`, index `[e]`, call `f(...)`

Literals: integers (decimal, 0x, 0o, 0b, `_` separators), floats, strings in `"..."`,
`'...'` (with escapes) or backquotes (raw), `true`, `false`, `nil`, arrays `[...]` and maps
`{k: v}`. Anything else expr-lang has (pipes `|`, `..` ranges, slices, `matches`,
predicates and closures, `let`, `#`) is refused with ExpressionError naming it, so an
expression is either understood or rejected, never half-understood.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any


class ExpressionError(Exception):
    """An expression cannot be parsed or evaluated; the message says why."""


# ---------------------------------------------------------------- tokens


@dataclasses.dataclass(frozen=True)
class Token:
    """One lexical token: its kind (number, string, name, op, eof), value and offset."""

    kind: str  # "number", "string", "name", "op", "eof"
    value: Any
    position: int


_WORD_OPERATORS = {
    "and",
    "or",
    "not",
    "in",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "let",
}
_OPERATORS = sorted(
    [
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        "??",
        "?.",
        "..",
        "**",
        "+",
        "-",
        "*",
        "/",
        "%",
        "^",
        "<",
        ">",
        "!",
        "?",
        ":",
        ".",
        ",",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "|",
        "#",
        ";",
        "=",
    ],
    key=len,
    reverse=True,
)
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+"
    r"|(?:[0-9][0-9_]*)?\.?[0-9][0-9_]*(?:[eE][+-]?[0-9]+)?"
)
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
}


def tokenize(text: str) -> list[Token]:
    """Split an expression into tokens; raises ExpressionError for a character it cannot use."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char.isdigit() or (
            char == "." and i + 1 < len(text) and text[i + 1].isdigit()
        ):
            match = _NUMBER.match(text, i)
            assert match is not None
            tokens.append(Token("number", _number(match.group(0)), i))
            i = match.end()
            continue
        if char in "\"'":
            value, end = _quoted(text, i)
            tokens.append(Token("string", value, i))
            i = end
            continue
        if char == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise ExpressionError(f"unterminated string at position {i}")
            tokens.append(Token("string", text[i + 1 : end], i))
            i = end + 1
            continue
        match = _NAME.match(text, i)
        if match:
            word = match.group(0)
            kind = "op" if word in _WORD_OPERATORS else "name"
            tokens.append(Token(kind, word, i))
            i = match.end()
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise ExpressionError(f"unexpected character {char!r} at position {i}")
    tokens.append(Token("eof", None, len(text)))
    return tokens


def _number(text: str) -> int | float:
    digits = text.replace("_", "")
    try:
        if digits[:2].lower() in ("0x", "0o", "0b"):
            return int(digits, 0)
        if any(c in digits for c in ".eE"):
            return float(digits)
        return int(digits, 10)
    except ValueError:
        raise ExpressionError(f"invalid number {text!r}") from None


def _quoted(text: str, start: int) -> tuple[str, int]:
    quote, i = text[start], start + 1
    out: list[str] = []
    while i < len(text):
        char = text[i]
        if char == quote:
            return "".join(out), i + 1
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[nxt])
                i += 2
                continue
            widths = {"x": 2, "u": 4, "U": 8}
            if nxt in widths:
                digits = text[i + 2 : i + 2 + widths[nxt]]
                if len(digits) == widths[nxt] and all(
                    c in "0123456789abcdefABCDEF" for c in digits
                ):
                    out.append(chr(int(digits, 16)))
                    i += 2 + widths[nxt]
                    continue
            raise ExpressionError(f"invalid escape \\{nxt} in string at position {i}")
        out.append(char)
        i += 1
    raise ExpressionError(f"unterminated string at position {start}")


# ---------------------------------------------------------------- tree


@dataclasses.dataclass(frozen=True)
class Literal:
    """A constant: number, string, bool, nil."""

    value: Any


@dataclasses.dataclass(frozen=True)
class Name:
    """A top-level variable or function name."""

    name: str


@dataclasses.dataclass(frozen=True)
class Member:
    """`target.key`, `target?.key` or `target[key]`."""

    target: Node
    key: Node
    optional: bool = False


@dataclasses.dataclass(frozen=True)
class Call:
    """`callee(args...)`."""

    callee: Node
    args: tuple[Node, ...]


@dataclasses.dataclass(frozen=True)
class Unary:
    """`!x`, `not x`, `-x`, `+x`."""

    op: str
    operand: Node


@dataclasses.dataclass(frozen=True)
class Binary:
    """`left op right`."""

    op: str
    left: Node
    right: Node


@dataclasses.dataclass(frozen=True)
class Conditional:
    """`test ? then : otherwise`."""

    test: Node
    then: Node
    otherwise: Node


@dataclasses.dataclass(frozen=True)
class ArrayLit:
    """`[a, b, ...]`."""

    items: tuple[Node, ...]


@dataclasses.dataclass(frozen=True)
class MapLit:
    """`{key: value, ...}`."""

    pairs: tuple[tuple[Node, Node], ...]


Node = Literal | Name | Member | Call | Unary | Binary | Conditional | ArrayLit | MapLit

# ---------------------------------------------------------------- parser

_BINARY: dict[str, tuple[int, bool]] = {  # operator -> (precedence, right-associative)
    "||": (10, False),
    "or": (10, False),
    "&&": (15, False),
    "and": (15, False),
    "==": (20, False),
    "!=": (20, False),
    "<": (20, False),
    ">": (20, False),
    "<=": (20, False),
    ">=": (20, False),
    "in": (20, False),
    "not in": (20, False),
    "contains": (20, False),
    "startsWith": (20, False),
    "endsWith": (20, False),
    "+": (30, False),
    "-": (30, False),
    "*": (60, False),
    "/": (60, False),
    "%": (60, False),
    "**": (100, True),
    "^": (100, True),
    "??": (500, False),
}
_UNARY = {"!": 50, "not": 50, "-": 90, "+": 90}
_REFUSED = {
    "|": "the pipe operator `|`",
    "..": "the range operator `..`",
    "matches": "the `matches` operator",
    "let": "`let` bindings",
    "#": "predicates (`#`)",
    ";": "`;` sequences",
    "=": "assignment `=`",
}
_KEYWORDS = {"true": True, "false": False, "nil": None}


def parse(text: str) -> Node:
    """Return the syntax tree of an expression; raises ExpressionError naming what is wrong."""
    parser = _Parser(tokenize(text))
    node = parser.expression(0)
    parser.expect_end()
    return node


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.index = 0

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def at(self, value: str) -> bool:
        return self.current.kind == "op" and self.current.value == value

    def expect(self, value: str) -> None:
        if not self.at(value):
            raise ExpressionError(
                f"expected {value!r} but found {self._describe(self.current)}"
            )
        self.advance()

    def expect_end(self) -> None:
        if self.current.kind != "eof":
            self._refuse(self.current)
            raise ExpressionError(
                f"unexpected {self._describe(self.current)} at position {self.current.position}"
            )

    @staticmethod
    def _describe(token: Token) -> str:
        return "end of expression" if token.kind == "eof" else repr(str(token.value))

    @staticmethod
    def _refuse(token: Token) -> None:
        if token.kind == "op" and token.value in _REFUSED:
            raise ExpressionError(
                f"{_REFUSED[token.value]} is not supported by the reference controller"
            )

    def _binary_operator(self) -> str | None:
        token = self.current
        if token.kind != "op":
            return None
        if token.value == "not":
            following = self.tokens[self.index + 1]
            if following.kind == "op" and following.value == "in":
                return "not in"
            if following.kind == "op" and following.value in (
                "contains",
                "startsWith",
                "endsWith",
                "matches",
            ):
                raise ExpressionError(
                    f"`not {following.value}` is not supported by the reference controller"
                )
            return None
        self._refuse(token)
        return str(token.value) if token.value in _BINARY else None

    def expression(self, precedence: int) -> Node:
        left = self.primary()
        while True:
            op = self._binary_operator()
            if op is None or _BINARY[op][0] < precedence:
                break
            self.advance()
            if op == "not in":
                self.advance()
            level, right_assoc = _BINARY[op]
            right = self.expression(level if right_assoc else level + 1)
            left = Binary(op, left, right)
        if precedence == 0 and self.at("?"):
            self.advance()
            if self.at(":"):
                raise ExpressionError(
                    "the `?:` operator is not supported by the reference controller"
                )
            then = self.expression(0)
            self.expect(":")
            otherwise = self.expression(0)
            left = Conditional(left, then, otherwise)
        return left

    def primary(self) -> Node:
        token = self.current
        if token.kind == "op" and token.value in _UNARY:
            self.advance()
            operand = self.expression(_UNARY[str(token.value)])
            return self.postfix(Unary(str(token.value), operand))
        self._refuse(token)
        self.advance()
        node: Node
        if token.kind in ("number", "string"):
            node = Literal(token.value)
        elif token.kind == "name":
            node = (
                Literal(_KEYWORDS[token.value])
                if token.value in _KEYWORDS
                else Name(str(token.value))
            )
        elif token.kind == "op" and token.value == "(":
            node = self.expression(0)
            self.expect(")")
        elif token.kind == "op" and token.value == "[":
            node = ArrayLit(self._list("]"))
        elif token.kind == "op" and token.value == "{":
            node = self._map()
        else:
            raise ExpressionError(
                f"unexpected {self._describe(token)} at position {token.position}"
            )
        return self.postfix(node)

    def _list(self, closing: str) -> tuple[Node, ...]:
        items: list[Node] = []
        while not self.at(closing):
            items.append(self.expression(0))
            if not self.at(closing):
                self.expect(",")
        self.advance()
        return tuple(items)

    def _map(self) -> MapLit:
        pairs: list[tuple[Node, Node]] = []
        while not self.at("}"):
            token = self.advance()
            key: Node
            if token.kind in ("name", "string", "number"):
                key = Literal(token.value)
            elif token.kind == "op" and token.value == "(":
                key = self.expression(0)
                self.expect(")")
            else:
                self._refuse(token)
                raise ExpressionError(
                    f"unexpected {self._describe(token)} as a map key at position {token.position}"
                )
            self.expect(":")
            pairs.append((key, self.expression(0)))
            if not self.at("}"):
                self.expect(",")
        self.advance()
        return MapLit(tuple(pairs))

    def postfix(self, node: Node) -> Node:
        while True:
            if self.at(".") or self.at("?."):
                optional = self.advance().value == "?."
                name = self.advance()
                if name.kind not in ("name", "op") or not _NAME.fullmatch(
                    str(name.value)
                ):
                    raise ExpressionError(
                        f"expected a name after '.' but found {self._describe(name)}"
                    )
                node = Member(node, Literal(str(name.value)), optional)
            elif self.at("["):
                self.advance()
                if self.at(":"):
                    raise ExpressionError(
                        "slices `[a:b]` are not supported by the reference controller"
                    )
                key = self.expression(0)
                if self.at(":"):
                    raise ExpressionError(
                        "slices `[a:b]` are not supported by the reference controller"
                    )
                self.expect("]")
                node = Member(node, key)
            elif self.at("("):
                self.advance()
                node = Call(node, self._list(")"))
            else:
                return node
